import { AppError } from "@agent-orchestrator/shared/runtime";
import { branchRef, type RepositoryPushed } from "@agent-orchestrator/shared/wire";
import { GitFailed, runGit } from "../git/git-command.js";
import { checkedUrl, remoteAuthorization, remoteProtocols } from "./remote-clone.js";
import type { Repositories } from "./repositories.js";

/**
 * Pushes a branch of the project's repository to the remote it was cloned from (docs/repositories.md "Pushing to
 * the remote"), for the owner; the model has no way to ask for it. The branch's commit is read from the refs in
 * KV at this moment and its objects from this replica's cache, brought up to the pack list first (the pack list
 * moves before the refs, so the commit's objects are there). The host's hardened git pushes that commit, never
 * forced, from the cache's own bare repository, whose config is the host's: no hook runs (`core.hooksPath`), no
 * redirect is followed, only https (http where the operator allows it, as for a clone). The credential goes to git
 * in its environment, never its arguments; what comes back is git's reason with the credential and host paths
 * taken out.
 */
export async function pushBranch(repositories: Repositories, project: string, branch: string, answerBy = Number.POSITIVE_INFINITY): Promise<RepositoryPushed> {
  const repository = await repositories.attached(project);
  if (!repository) throw new AppError("NOT_FOUND", "The project has no repository");
  const { record, bucket, local } = repository;
  if (record.remote === null) throw new AppError("REPOSITORY_NO_REMOTE", "The repository came from a bundle: it has no remote to push to. Fetch it with git from /git/<project>.git instead");
  const settings = repositories.settings;
  const url = checkedUrl(record.remote.url, settings, (reason) => new AppError("REMOTE_PUSH_FAILED", `The remote cannot be pushed to: ${reason}`));
  const ref = branchRef(branch);
  const commit = (await bucket.refs(project, record.generation)).value?.refs.find((candidate) => candidate.name === ref)?.id;
  if (ref === undefined || commit === undefined) throw new AppError("BRANCH_NOT_FOUND", `The repository has no branch ${branch}`);
  const credential = await bucket.credential(project, record.generation);
  await local.sync();
  // stopped at REPOSITORY_CLONE_TIMEOUT_MS, or in time to be answered before the caller stops waiting
  const timeoutMs = Math.min(settings.timeoutMs, answerBy - answerMarginMs - Date.now());
  if (timeoutMs <= 0) throw new AppError("REMOTE_PUSH_FAILED", "No time was left to push before the answer was due; nothing was sent to the remote");
  const authorization = remoteAuthorization({ username: record.remote.username, credential });
  // the credential as given and as HTTP basic sends it (`Authorization: Basic <base64>`)
  const secrets = credential === undefined ? [] : [credential, ...authorization.map(([, header]) => header.slice(header.lastIndexOf(" ") + 1))];
  try {
    const pushed = await runGit({
      gitDir: local.gitDir,
      secretConfig: authorization,
      protocols: remoteProtocols(settings),
      timeoutMs,
      args: ["push", "--no-recurse-submodules", "--", url, `${commit}:${ref}`],
    });
    return { branch, commit, remote: { url }, pushed: /Everything up-to-date/.test(pushed.stderr) ? "up-to-date" : true };
  } catch (error) {
    if (!(error instanceof GitFailed)) throw error;
    if (error.exitCode === null) throw new AppError("REMOTE_PUSH_FAILED", `The push did not end within ${timeoutMs} ms (REPOSITORY_CLONE_TIMEOUT_MS, or the gateway's UPLOAD_TIMEOUT_MS); the remote may have taken it or not`, { cause: error });
    throw new AppError("REMOTE_PUSH_FAILED", `The remote refused the push: ${pushRefusal(error.stderr, { secrets, folder: local.folder })}`, { cause: error });
  }
}

// what a refusal needs to reach the caller once git is stopped
const answerMarginMs = 2_000;

// the lines of git's output that say why: a refused ref, git's own error, the remote's words
const reasonLine = /^\s*(! |error:|fatal:|remote:)/;
// an absolute host path, not the path of a URL (that follows a host name or `//`)
const hostPath = /(?<![\w.:/-])\/(?:[\w.@+-]+\/)*[\w.@+-]+/g;

/** Why git refused a push, in its own words, without a secret or a host path, at most 1,000 characters. */
export function pushRefusal(stderr: string, hidden: { secrets: readonly string[]; folder: string }): string {
  let text = stderr
    .split("\n")
    .filter((line) => reasonLine.test(line) && !/^\s*hint:/.test(line))
    .map((line) => line.trim().replace(/\s+/g, " "))
    .join("; ");
  for (const secret of hidden.secrets) text = text.split(secret).join("***");
  text = text.split(hidden.folder).join("…").replace(hostPath, "…").replace(/…+/g, "…");
  if (text === "") return "git gave no reason";
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}
