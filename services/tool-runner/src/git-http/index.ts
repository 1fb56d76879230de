/**
 * git's smart HTTP protocol on the tool-runner (docs/repositories.md "Plain git over HTTP"): the host's hardened
 * `git upload-pack` and `git receive-pack` on a repository made for each request from the refs in KV and this
 * replica's cache of the packs; a push's pack stored and its refs moved by compare-and-set.
 */
export { addGitEndpoints } from "./git-http-endpoints.js";
export { gitServiceTimeoutMs, type GitHttpDeps } from "./git-http-deps.js";
export { TransitBodies } from "./transit-bodies.js";
