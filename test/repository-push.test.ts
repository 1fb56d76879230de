/**
 * The owner pushes a branch of a project's repository to the remote it was cloned from (issue 40 item 2;
 * docs/repositories.md "Pushing to the remote"), through the whole system against a git HTTP remote that asks for
 * a credential: a commit pushed over /git/<id>.git reaches the remote, a second push is up to date; an editor is
 * refused (403), a stranger and an unknown project get 404, a bad branch name 400, an unknown branch 404, a
 * repository from a bundle has no remote (409); a remote that moved on refuses a push that is not a fast-forward
 * (502 with git's reason); the credential is in no answer, audit record or log line (cases 321, 322).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachBundle } from "@agent-orchestrator/testing/attach-bundle";
import { startGitHttpRemote, type GitHttpRemote } from "@agent-orchestrator/testing/git-http-remote";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";
import { makeTestRepository, testGit } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token", bob: "bob-token", mallory: "mallory-token" };
type Person = keyof typeof tokens;
const secret = "push-credential-7c6d5e";
const run = promisify(execFile);

let system: TestSystem;
let remote: GitHttpRemote;
let work: string;
let served: string;
let project: string;
let bundleProject: string;
const removals: Array<() => Promise<void>> = [];

async function api(method: string, route: string, body?: unknown, as: Person = "alice"): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${tokens[as]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const push = (branch: unknown, as: Person = "alice", id = project) => api("POST", `/api/projects/${id}/repository/push`, { branch }, as);

/** The commit a branch of the remote's repository is at, or "" when it has none. */
const remoteHead = (branch: string) => execFileSync("git", ["--git-dir", path.join(served, "app.git"), "for-each-ref", "--format=%(objectname)", `refs/heads/${branch}`], { encoding: "utf8" }).trim();

/** alice's git, with her token as a bearer header, as a person uses /git/<id>.git. */
async function git(cwd: string, args: readonly string[]): Promise<string> {
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
  const auth = ["-c", `http.extraHeader=Authorization: Bearer ${tokens.alice}`, "-c", "user.name=alice", "-c", "user.email=alice@example.com"];
  return (await run("git", [...auth, ...args], { cwd, env })).stdout;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "ao-repository-push-"));
  removals.push(() => rm(work, { recursive: true, force: true }));
  const users = Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",");
  system = await startTestSystem({ responder: toolCallResponder, env: { AUTH_TOKENS: users, REPOSITORY_ALLOW_HTTP: "true" } });
  const made = await makeTestRepository({ "README.md": "# app\n", "src/add.js": "export const add = (a, b) => a + b;\n" });
  removals.push(made.remove);
  served = path.join(work, "served");
  testGit(work, ["clone", "-q", "--bare", made.folder, path.join(served, "app.git")]);
  remote = await startGitHttpRemote(served, { username: "ci", password: secret });
  project = (await api("POST", "/api/projects", { name: "App" })).body["project"].id as string;
  expect((await api("PUT", `/api/projects/${project}/members/bob`, { role: "editor" })).status).toBe(200);
  const cloned = await api("PUT", `/api/projects/${project}/repository`, { url: `${remote.url}app.git`, username: "ci", credential: secret });
  expect(cloned.status, JSON.stringify(cloned.body)).toBe(201);
  bundleProject = (await api("POST", "/api/projects", { name: "Bundled" })).body["project"].id as string;
  expect((await attachBundle(system.url, bundleProject, made.bundle, tokens.alice)).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await remote?.close();
  await system?.stop();
  await Promise.all(removals.map((remove) => remove()));
});

describe("POST /api/projects/:id/repository/push", { shuffle: false }, () => {
  let commit: string;

  it("pushes the owner's branch to the remote with its credential; the same push again is up to date", async () => {
    const clone = path.join(work, "alice");
    await git(work, ["clone", "-q", `${system.url}/git/${project}.git`, clone]);
    await writeFile(path.join(clone, "src/mul.js"), "export const mul = (a, b) => a * b;\n");
    await git(clone, ["add", "-A"]);
    await git(clone, ["commit", "-q", "-m", "mul"]);
    await git(clone, ["push", "-q", "origin", "HEAD:feature/mul"]);
    commit = (await git(clone, ["rev-parse", "HEAD"])).trim();
    remote.authorizations.length = 0;
    const pushed = await push("feature/mul");
    expect(pushed).toEqual({ status: 200, body: { success: true, branch: "feature/mul", commit, remote: { url: `${remote.url}app.git` }, pushed: true } });
    expect(remoteHead("feature/mul")).toBe(commit);
    expect(remote.authorizations).toContain(`Basic ${Buffer.from(`ci:${secret}`).toString("base64")}`);
    expect((await push("feature/mul")).body).toMatchObject({ commit, pushed: "up-to-date" });
  });

  it("is the owner's only: an editor gets 403, a stranger and an unknown project 404", async () => {
    expect((await push("feature/mul", "bob")).body["error"]).toMatchObject({ code: "PROJECT_FORBIDDEN" });
    expect((await push("feature/mul", "bob")).status).toBe(403);
    expect((await push("feature/mul", "mallory")).status).toBe(404);
    expect((await push("main", "alice", "p-unknown")).status).toBe(404);
  });

  it("refuses a bad branch name (400), an unknown branch (404) and a repository from a bundle (409)", async () => {
    for (const name of ["a..b", "../main", "main\u0007", ""]) expect((await push(name)).status, JSON.stringify(name)).toBe(400);
    expect(await push("nothing/here")).toMatchObject({ status: 404, body: { error: { code: "BRANCH_NOT_FOUND" } } });
    expect(await push("main", "alice", bundleProject)).toMatchObject({ status: 409, body: { error: { code: "REPOSITORY_NO_REMOTE" } } });
  });

  it("answers 502 REMOTE_PUSH_FAILED with git's reason when the remote refuses a push that is not a fast-forward", async () => {
    const other = path.join(work, "other");
    testGit(work, ["clone", "-q", path.join(served, "app.git"), other]);
    testGit(other, ["commit", "-q", "--allow-empty", "-m", "someone else's"]);
    testGit(other, ["push", "-q", "origin", "main"]);
    const before = remoteHead("main");
    const refused = await push("main");
    expect(refused.status).toBe(502);
    expect(refused.body["error"]).toMatchObject({ code: "REMOTE_PUSH_FAILED", message: expect.stringMatching(/rejected.*main/) });
    expect(refused.body["error"].message).not.toMatch(/\/tmp\//);
    expect(remoteHead("main")).toBe(before);
  });

  it("records each push, and no answer, audit record or log line holds the credential (case 322)", async () => {
    const records = async () => (await api("GET", `/api/projects/${project}/audit?limit=500`)).body["records"] as Array<Record<string, unknown>>;
    await waitUntil(async () => (await records()).filter((record) => record["action"] === "repository_pushed").length >= 5, { message: "the push records", intervalMs: 200 });
    const pushes = (await records()).filter((record) => record["action"] === "repository_pushed");
    expect(pushes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: "alice", target: "feature/mul", outcome: "ok", detail: `pushed: ${commit} to ${remote.url}app.git` }),
        expect.objectContaining({ actor: "bob", outcome: "refused", detail: "PROJECT_FORBIDDEN" }),
        expect.objectContaining({ actor: "alice", target: "main", outcome: "failed", detail: "REMOTE_PUSH_FAILED" }),
      ]),
    );
    const basic = Buffer.from(`ci:${secret}`).toString("base64");
    const everything = [JSON.stringify(pushes), JSON.stringify((await api("GET", `/api/projects/${project}/repository`)).body), ...system.processes.flatMap((service) => service.lines.map((line) => JSON.stringify(line)))];
    for (const text of everything) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(basic);
    }
  });
});
