/**
 * People use plain git against a project's repository (issue 40 item 2; docs/repositories.md "Plain git over
 * HTTP"), through the whole system: the owner clones `/git/<id>.git` with a bearer token and pushes, an editor
 * fetches that commit with the token as a Basic password (a credential helper's way) and pushes a branch, a viewer
 * fetches and is refused a push with the message git shows, a non-member and an unknown project get 404, a caller
 * without a credential gets git's Basic challenge. Hostile ref names, 10,000 refs and a push over
 * GIT_PUSH_MAX_BYTES are refused with nothing stored (RELIABILITY case 93); a pushed `.git/config` or hook never
 * runs (case 92); a push shows up in the working tree of the chat's next turn, and each push is an audit record.
 */
import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";
import { attachBundle } from "@agent-orchestrator/testing/attach-bundle";
import { makeTestRepository, testGit } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token", dave: "dave-token" };
type Person = keyof typeof tokens;
const pushLimit = 2 * 1024 * 1024;
const zero = "0".repeat(40);
const run = promisify(execFile);

let system: TestSystem;
let work: string;
let project: string;
const removals: Array<() => Promise<void>> = [];

async function api(method: string, route: string, body?: unknown, as: Person = "alice"): Promise<Response> {
  return fetch(`${system.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${tokens[as]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * git as each person runs it: alice with her token as a bearer header, the others with theirs as the password of
 * a credential helper (what git's Basic authentication sends), nobody with none.
 */
async function git(as: Person | "nobody", cwd: string, args: readonly string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const auth =
    as === "nobody" ? [] : as === "alice" ? ["-c", `http.extraHeader=Authorization: Bearer ${tokens.alice}`] : ["-c", `credential.helper=!f() { echo username=${as}; echo password=${tokens[as]}; }; f`];
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" };
  try {
    const { stdout, stderr } = await run("git", ["-c", `user.name=${as}`, "-c", `user.email=${as}@example.com`, "-c", "init.defaultBranch=main", ...auth, ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

const remote = (id = project) => `${system.url}/git/${id}.git`;

async function clone(as: Person, folder: string): Promise<string> {
  const target = path.join(work, folder);
  const cloned = await git(as, work, ["clone", "-q", remote(), target]);
  expect(cloned).toMatchObject({ code: 0, stderr: "" });
  return target;
}

async function commitFile(as: Person, folder: string, file: string, content: string | Buffer): Promise<string> {
  await writeFile(path.join(folder, file), content);
  await git(as, folder, ["add", "-A"]);
  await git(as, folder, ["commit", "-q", "-m", `${as} adds ${file}`]);
  return (await git(as, folder, ["rev-parse", "HEAD"])).stdout.trim();
}

/** The project's audit records of pushes, once `expected` are among them (a record is published just after the answer). */
async function pushRecords(expected: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  await waitUntil(
    async () => {
      const page = (await (await api("GET", `/api/projects/${project}/audit?limit=500`)).json()) as { records: Array<Record<string, unknown>> };
      const pushes = page.records.filter((record) => record["action"] === "git_pushed");
      return expected.every((wanted) => pushes.some((record) => Object.entries(wanted).every(([key, value]) => record[key] === value)));
    },
    { message: `the push records ${JSON.stringify(expected)}`, intervalMs: 200 },
  );
}

async function branches(): Promise<Record<string, string>> {
  const body = (await (await api("GET", `/api/projects/${project}/repository`)).json()) as { repository: { branches: Array<{ name: string; head: string }> } };
  return Object.fromEntries(body.repository.branches.map((branch) => [branch.name, branch.head]));
}

/** A push request as git sends it, for what no git client sends. */
function pushRequest(refs: readonly string[], head: string): Buffer {
  const line = (text: string) => {
    const bytes = Buffer.from(text, "utf8");
    return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, "0")), bytes]);
  };
  return Buffer.concat([...refs.map((ref, index) => line(`${zero} ${head} ${ref}${index === 0 ? "\0report-status" : ""}\n`)), Buffer.from("0000")]);
}

async function rawPush(body: Buffer, as: Person = "alice"): Promise<string> {
  const response = await fetch(`${remote()}/git-receive-pack`, { method: "POST", headers: { authorization: `Bearer ${tokens[as]}`, "content-type": "application/x-git-receive-pack-request" }, body });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer()).toString("latin1");
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "ao-git-smart-http-"));
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  const users = Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",");
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root, AUTH_TOKENS: users, GIT_PUSH_MAX_BYTES: String(pushLimit) } });
  project = ((await (await api("POST", "/api/projects", { name: "Calc" })).json()) as { project: { id: string } }).project.id;
  expect((await api("PUT", `/api/projects/${project}/members/bob`, { role: "editor" })).status).toBe(200);
  expect((await api("PUT", `/api/projects/${project}/members/carol`, { role: "viewer" })).status).toBe(200);
  const made = await makeTestRepository({ "README.md": "# calc\n", "src/add.js": "export const add = (a, b) => a + b;\n" });
  removals.push(made.remove);
  expect((await attachBundle(system.url, project, made.bundle, tokens.alice)).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await Promise.all(removals.map((remove) => remove()));
  if (work) await rm(work, { recursive: true, force: true });
});

describe("git over /git/<project>.git", { shuffle: false }, () => {
  it("lets the owner clone and push, an editor fetch that commit and push a branch, and records each push", async () => {
    const alice = await clone("alice", "alice");
    expect(await readFile(path.join(alice, "src/add.js"), "utf8")).toContain("a + b");
    const before = (await branches())["main"];
    const head = await commitFile("alice", alice, "mul.js", "export const mul = (a, b) => a * b;\n");
    const pushed = await git("alice", alice, ["push", "origin", "main"]);
    expect(pushed.code).toBe(0);
    expect((await branches())["main"]).toBe(head);

    const bob = await clone("bob", "bob");
    expect((await git("bob", bob, ["log", "-1", "--format=%H %an %s"])).stdout.trim()).toBe(`${head} alice alice adds mul.js`);
    const feature = await commitFile("bob", bob, "div.js", "export const div = (a, b) => a / b;\n");
    expect((await git("bob", bob, ["push", "origin", "HEAD:refs/heads/feature"])).code).toBe(0);
    expect((await git("alice", alice, ["fetch", "-q", "origin"])).code).toBe(0);
    expect((await git("alice", alice, ["rev-parse", "origin/feature"])).stdout.trim()).toBe(feature);

    await pushRecords([
      { actor: "alice", outcome: "ok", target: `refs/heads/main ${before}→${head}` },
      { actor: "bob", outcome: "ok", target: `refs/heads/feature ${zero}→${feature}` },
    ]);
  });

  it("lets a viewer fetch and refuses their push with a message git shows; a non-member, an unknown project and no credential get nothing", async () => {
    const carol = await clone("carol", "carol");
    await commitFile("carol", carol, "viewer.txt", "not mine to push\n");
    const refused = await git("carol", carol, ["push", "origin", "main"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("remote: You are a viewer of this project: viewers fetch, editors and owners push");
    expect(refused.stderr).toMatch(/403/);

    for (const [as, id] of [["dave", project], ["alice", "nosuchproject"]] as const) {
      const hidden = await git(as, work, ["ls-remote", remote(id)]);
      expect(hidden.code).not.toBe(0);
      expect(hidden.stderr).toContain("remote: Project not found");
      expect(hidden.stderr).toMatch(/not found/);
    }

    const anonymous = await git("nobody", work, ["ls-remote", remote()]);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);
    const challenge = await fetch(`${remote()}/info/refs?service=git-upload-pack`);
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
    // Basic credentials a browser kept do not let another site's page push
    const crossSite = await fetch(`${remote()}/git-receive-pack`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`bob:${tokens.bob}`).toString("base64")}`, origin: "https://evil.example", "content-type": "application/x-git-receive-pack-request" },
      body: "0000",
    });
    expect(crossSite.status).toBe(403);

    await pushRecords([{ actor: "carol", outcome: "refused", detail: "PROJECT_FORBIDDEN" }]);
  });

  it("refuses hostile ref names, 10,000 refs and a push over its limit, storing nothing of them (case 93)", async () => {
    const folder = await clone("alice", "hostile");
    const head = (await git("alice", folder, ["rev-parse", "HEAD"])).stdout.trim();
    const before = await branches();
    const bidi = await git("alice", folder, ["push", "origin", "HEAD:refs/heads/evil\u202egnp.js"]);
    expect(bidi.stderr).toMatch(/\[remote rejected\].*\(ref name not allowed/);

    const hostile = ["refs/heads/a..b", "refs/heads/x~1", "refs/heads/x^", "refs/heads/x:y", "refs/heads/../../etc", "refs/heads/bell\x07", "refs/heads/\u202e"];
    const report = await rawPush(pushRequest(hostile, head));
    for (const ref of hostile) expect(report).toContain(`ng ${Buffer.from(ref, "utf8").toString("latin1")} ref name not allowed`);
    // 10,000 refs: a body past what travels in a message, through the uploads store, refused whole
    const flood = await rawPush(pushRequest(Array.from({ length: 10_000 }, (_, index) => `refs/heads/b${index}`), head));
    expect(flood).toContain("unpack more than 1000 refs in one push (REPOSITORY_MAX_REFS); nothing was stored");

    // 3 MiB that do not compress, over GIT_PUSH_MAX_BYTES (2 MiB)
    await commitFile("alice", folder, "noise.bin", randomBytes(3 * 1024 * 1024));
    const large = await git("alice", folder, ["push", "origin", "main"]);
    expect(large.code).not.toBe(0);
    expect(large.stderr).toContain(`remote unpack failed: the push is larger than ${pushLimit} bytes (GIT_PUSH_MAX_BYTES); nothing was stored`);
    expect(await branches()).toEqual(before);

    // a fetch request that inflates past its limit (64 MiB): 128 MiB of zeros in 128 KiB of gzip, stopped there
    const bomb = await fetch(`${remote()}/git-upload-pack`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/x-git-upload-pack-request", "content-encoding": "gzip" },
      body: gzipSync(Buffer.alloc(128 * 1024 * 1024), { level: 9 }),
    });
    expect(bomb.status).toBe(413);
  });

  it("never runs a pushed .git/config or hook (case 92)", async () => {
    const folder = await clone("alice", "dotgit");
    const marker = path.join(work, `ran-${randomUUID()}`);
    const hook = `#!/bin/sh\ntouch ${marker}\n`;
    const blob = (content: string) => testGit(folder, ["hash-object", "-w", "--stdin"], content).trim();
    const config = blob(`[core]\n\tfsmonitor = ${path.join(folder, "fsmonitor.sh")}\n\tsshCommand = sh -c 'touch ${marker}'\n\thooksPath = hooks\n`);
    const hooks = testGit(folder, ["mktree"], `100755 blob ${blob(hook)}\tpost-receive\n100755 blob ${blob(hook)}\tpost-update\n`).trim();
    const dotGit = testGit(folder, ["mktree"], `100644 blob ${config}\tconfig\n040000 tree ${hooks}\thooks\n`).trim();
    const root = testGit(folder, ["mktree"], `040000 tree ${dotGit}\t.git\n100644 blob ${blob("x")}\tREADME.md\n`).trim();
    const commit = testGit(folder, ["commit-tree", root, "-p", "HEAD", "-m", "a repository inside"]).trim();
    const before = await branches();
    const refused = await git("alice", folder, ["push", "origin", `${commit}:refs/heads/main`]);
    expect(refused.stderr).toContain("remote unpack failed: git's checks refuse an object (hasDotgit: contains '.git')");
    expect(await branches()).toEqual(before);

    // the same as ordinary files of a commit: taken as files, never read as config or run
    await writeFile(path.join(folder, "fsmonitor.sh"), hook, { mode: 0o755 });
    await writeFile(path.join(folder, "post-receive"), hook, { mode: 0o755 });
    await commitFile("alice", folder, "config", `[core]\n\thooksPath = .\n\tfsmonitor = ./fsmonitor.sh\n`);
    expect((await git("alice", folder, ["push", "origin", "main"])).code).toBe(0);
    expect((await git("alice", folder, ["pull", "-q"])).code).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it("shows a pushed commit in the working tree of a chat's next turn", async () => {
    const folder = await clone("bob", "next-turn");
    await commitFile("bob", folder, "pushed.md", "# Pushed by Bob\n");
    expect((await git("bob", folder, ["push", "origin", "main"])).code).toBe(0);
    const turn = await api("POST", "/api/chat", { agent_id: "bmm/analyst", project_id: project, message: `call read_file\n${JSON.stringify({ file_path: "{project-root}/pushed.md" })}` });
    const answer = (await turn.json()) as { success: boolean; response: string };
    expect(answer.success).toBe(true);
    expect(JSON.parse(answer.response)).toMatchObject({ success: true, content: expect.stringContaining("# Pushed by Bob") });
  });
});
