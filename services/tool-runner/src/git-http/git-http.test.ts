import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, readObjectChunks } from "@agent-orchestrator/shared/runtime";
import { GitService, jetStreamNames, type GitBody } from "@agent-orchestrator/shared/wire";
import { StagedUploads } from "../store/staged-uploads.js";
import { makeTestRepository, openTestRepositories, testGit, type TestRepositories } from "../testing/repository-fixture.js";
import { advertise, uploadPack } from "./git-fetch.js";
import type { GitHttpDeps } from "./git-http-deps.js";
import { receivePack } from "./git-push.js";
import { flushPkt, pktLine } from "./pkt-line.js";
import { TransitBodies } from "./transit-bodies.js";

/**
 * The tool-runner's side of git's smart HTTP protocol, driven by a real git client through a bare HTTP adapter
 * (the gateway's part, its sign-in and roles, is test/git-smart-http.test.ts): clones and fetches on two
 * replicas with caches of their own, pushes whose refs move by compare-and-set, and the refusals of
 * RELIABILITY cases 92 and 93.
 */

let system: TestRepositories;
let staged: StagedUploads;
let work: string;
let bundle: string;
const servers: Server[] = [];
const removals: Array<() => Promise<void>> = [];
const run = promisify(execFile);
const zero = "0".repeat(40);

beforeAll(async () => {
  system = await openTestRepositories();
  staged = await StagedUploads.open(system.connection.jetstream(), { subjectPrefix: system.prefix, replicas: 1 });
  work = await mkdtemp(path.join(tmpdir(), "ao-git-http-test-"));
  const made = await makeTestRepository({ "README.md": "# calc\n", "src/add.js": "export const add = (a, b) => a + b;\n" });
  bundle = made.bundle;
  removals.push(made.remove);
});

afterAll(async () => {
  for (const server of servers) server.close();
  await staged.close();
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
  await rm(work, { recursive: true, force: true });
});

/** A replica's git service behind a bare HTTP adapter: what the gateway does, without its sign-in. */
async function gitServer(repositories = system.repositories): Promise<{ url: string; deps: GitHttpDeps }> {
  const js = system.connection.jetstream();
  // a body past 1 KiB goes through the uploads store, so both ways are taken
  const bodies = await TransitBodies.open(js, staged, { subjectPrefix: system.prefix, flush: () => system.connection.flush(), inlineMax: () => 1024 });
  const deps: GitHttpDeps = { repositories, bodies, logger: createLogger("git-http-test", "silent"), timeoutMs: 60_000, now: () => new Date() };
  const bucket = jetStreamNames(system.prefix).fileUploadsStore;
  const store = await js.views.os(bucket);
  const manager = await system.connection.jetstreamManager();
  const send = async (body: GitBody, response: import("node:http").ServerResponse) => {
    if ("inline" in body) return void response.end(Buffer.from(body.inline, "base64"));
    const info = await store.info(body.staged);
    if (!info) throw new Error("staged body missing");
    for await (const chunk of readObjectChunks(manager, bucket, info)) response.write(chunk);
    response.end();
    await store.delete(body.staged);
  };
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const match = /^\/([A-Za-z0-9_-]+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/.exec(url.pathname);
      const project = match?.[1];
      const protocol = request.headers["git-protocol"] as string | undefined;
      if (!match || project === undefined) return void response.writeHead(404).end();
      if (match[2] === "info/refs") {
        const service = GitService.parse(url.searchParams.get("service"));
        response.setHeader("content-type", `application/x-${service}-advertisement`);
        return void (await send(await advertise(deps, { project_id: project, service, ...(protocol ? { protocol } : {}) }), response));
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const input = request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
      const service = GitService.parse(match[2]);
      const rpc = { project_id: project, service, body: { inline: input.toString("base64") }, user: "alice", ...(protocol ? { protocol } : {}) };
      response.setHeader("content-type", `application/x-${service}-result`);
      if (service === "git-upload-pack") return void (await send(await uploadPack(deps, rpc), response));
      const outcome = await receivePack(deps, rpc);
      response.end(outcome.report);
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { url: `http://127.0.0.1:${address.port}`, deps };
}

/** The test's own git, as a person runs it (config and hooks of their own, trusted). */
async function git(cwd: string, args: readonly string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
  try {
    const { stdout, stderr } = await run("git", ["-c", "user.name=Person", "-c", "user.email=person@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

async function refsOf(project: string): Promise<Record<string, string>> {
  const attached = await system.repositories.attached(project);
  if (!attached) throw new Error("no repository");
  const refs = (await attached.bucket.refs(project, attached.record.generation)).value?.refs ?? [];
  return Object.fromEntries(refs.map((ref) => [ref.name, ref.id]));
}

async function clone(url: string, folder: string, protocol: "0" | "2" = "2"): Promise<string> {
  const target = path.join(work, folder);
  const cloned = await git(work, ["-c", `protocol.version=${protocol}`, "clone", "-q", url, target]);
  expect(cloned.stderr).toBe("");
  expect(cloned.code).toBe(0);
  return target;
}

/** A push request as git sends it, for names no git client sends. */
function pushRequest(commands: ReadonlyArray<readonly [old: string, updated: string, ref: string]>, capabilities = "report-status side-band-64k"): Buffer {
  const lines = commands.map(([old, updated, ref], index) => pktLine(Buffer.from(`${old} ${updated} ${ref}${index === 0 ? `\0${capabilities}` : ""}\n`, "latin1")));
  return Buffer.concat([...lines, flushPkt]);
}

describe("git's smart HTTP protocol on the tool-runner", () => {
  it("clones over protocol versions 2 and 0, and a push moves the branch for a fetch on another replica", async () => {
    const project = await system.attached(bundle);
    const first = await gitServer();
    const second = await gitServer((await system.replica()).repositories);
    const ours = await clone(`${first.url}/${project}.git`, `${project}-v2`);
    expect(await readFile(path.join(ours, "src/add.js"), "utf8")).toContain("a + b");
    const old = await clone(`${second.url}/${project}.git`, `${project}-v0`, "0");
    expect(await readFile(path.join(old, "README.md"), "utf8")).toBe("# calc\n");

    // a file of 64 KiB of noise: the pack is staged, not in the message
    await writeFile(path.join(ours, "noise.bin"), Buffer.from(Array.from({ length: 65536 }, (_, index) => (index * 7919) % 251)));
    await writeFile(path.join(ours, "src/mul.js"), "export const mul = (a, b) => a * b;\n");
    await git(ours, ["add", "-A"]);
    await git(ours, ["commit", "-q", "-m", "mul"]);
    const head = (await git(ours, ["rev-parse", "HEAD"])).stdout.trim();
    const pushed = await git(ours, ["push", "origin", "main", "main:refs/heads/feature"]);
    expect(pushed.code).toBe(0);
    expect(pushed.stderr).toMatch(/main -> main/);
    expect(await refsOf(project)).toMatchObject({ "refs/heads/main": head, "refs/heads/feature": head });

    const fetched = await git(old, ["-c", "protocol.version=0", "pull", "-q", "--ff-only"]);
    expect(fetched.code).toBe(0);
    expect(await readFile(path.join(old, "src/mul.js"), "utf8")).toContain("a * b");
    expect((await git(old, ["log", "-1", "--format=%an %s"])).stdout.trim()).toBe("Person mul");
  });

  it("refuses a push whose old value is not the ref's any more, and one that deletes the default branch", async () => {
    const project = await system.attached(bundle);
    const { url } = await gitServer();
    const ahead = await clone(`${url}/${project}.git`, `${project}-ahead`);
    const behind = await clone(`${url}/${project}.git`, `${project}-behind`);
    for (const [folder, name] of [[ahead, "a"], [behind, "b"]] as const) {
      await writeFile(path.join(folder, name), name);
      await git(folder, ["add", "-A"]);
      await git(folder, ["commit", "-q", "-m", name]);
    }
    expect((await git(ahead, ["push", "origin", "main"])).code).toBe(0);
    const late = await git(behind, ["push", "origin", "main"]);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toMatch(/\[rejected\].*fetch first|\[remote rejected\]/);
    const deleted = await git(ahead, ["push", "origin", ":main"]);
    expect(deleted.stderr).toMatch(/\[remote rejected\] main \(the default branch cannot be deleted\)/);
    expect((await refsOf(project))["refs/heads/main"]).toBe((await git(ahead, ["rev-parse", "HEAD"])).stdout.trim());
  });

  it("refuses hostile ref names, and more refs in one push than a repository may hold (case 93)", async () => {
    const project = await system.attached(bundle);
    const { url } = await gitServer();
    const folder = await clone(`${url}/${project}.git`, `${project}-names`);
    const head = (await git(folder, ["rev-parse", "HEAD"])).stdout.trim();
    // a name git itself allows but that would hide another on a page: a right-to-left override
    const bidi = await git(folder, ["push", "origin", "HEAD:refs/heads/evil\u202egnp.js"]);
    expect(bidi.stderr).toMatch(/\[remote rejected\].*\(ref name not allowed/);
    // names no git client sends, sent raw
    const hostile = ["refs/heads/a..b", "refs/heads/x~1", "refs/heads/x^", "refs/heads/x:y", "refs/heads/../../etc", "refs/heads/bell\x07", "refs/notes/x", "HEAD"];
    const response = await fetch(`${url}/${project}.git/git-receive-pack`, {
      method: "POST",
      headers: { "content-type": "application/x-git-receive-pack-request" },
      body: pushRequest(hostile.map((ref) => [zero, head, ref] as const), "report-status"),
    });
    const report = Buffer.from(await response.arrayBuffer()).toString("latin1");
    expect(report).toContain("unpack ok");
    for (const ref of hostile) expect(report).toContain(`ng ${ref} ref name not allowed`);
    expect(Object.keys(await refsOf(project))).toEqual(["refs/heads/main"]);

    // 10,000 refs in one push (sent raw: git's own client stalls on that many) are refused whole, with the reason
    const flood = await fetch(`${url}/${project}.git/git-receive-pack`, {
      method: "POST",
      headers: { "content-type": "application/x-git-receive-pack-request" },
      body: pushRequest(Array.from({ length: 10_000 }, (_, index) => [zero, head, `refs/heads/b${index}`] as const), "report-status"),
    });
    expect(Buffer.from(await flood.arrayBuffer()).toString("latin1")).toMatch(/^[0-9a-f]{4}unpack more than 1000 refs in one push \(REPOSITORY_MAX_REFS\); nothing was stored\n0000$/);
    expect(Object.keys(await refsOf(project))).toEqual(["refs/heads/main"]);
  });

  it("moves a chat's clean working tree to a pushed commit, and refuses a push to a chat's branch while it runs or has uncommitted work", async () => {
    const project = await system.attached(bundle);
    const { url } = await gitServer();
    const folder = await clone(`${url}/${project}.git`, `${project}-chats`);
    const attached = await system.repositories.attached(project);
    if (!attached) throw new Error("no repository");
    const { bucket, record, reader } = attached;
    const main = (await refsOf(project))["refs/heads/main"] ?? "";
    const tree = await reader.commitTree(main);
    // chat s1 has a working tree at main's commit with nothing uncommitted
    await bucket.changeRefs(project, record.generation, (current) => ({ refs: [...(current?.refs ?? []), { name: "refs/heads/chat/s1", id: main }] }));
    const clean = { branch: "chat/s1", head: main, detached: false, index: tree, files: tree, file_count: 2, bytes: 10, updated_at: "2026-01-01T00:00:00Z", updated_by: { user: "alice" } };
    const created = await bucket.putTreeState(project, record.generation, clean, 0);
    if (created === false) throw new Error("state not stored");
    // chat s2 has saved a file it has not committed
    await system.trees.change({ project, session: "s2" }, async () => [{ path: "notes.md", content: Buffer.from("draft\n") }], { user: "alice", session_id: "s2", agent_id: "dev" });

    await git(folder, ["fetch", "-q", "origin"]);
    await writeFile(path.join(folder, "fix.js"), "export const fixed = true;\n");
    await git(folder, ["add", "-A"]);
    await git(folder, ["commit", "-q", "-m", "fix"]);
    const head = (await git(folder, ["rev-parse", "HEAD"])).stdout.trim();

    // while a command of chat s1 holds its working tree, the push is refused
    const leased = await bucket.putTreeState(project, record.generation, { ...clean, lease: { holder: "replica:command", until: Date.now() + 60_000 } }, created);
    if (leased === false) throw new Error("lease not stored");
    const running = await git(folder, ["push", "origin", "HEAD:chat/s1"]);
    expect(running.stderr).toMatch(/\[remote rejected\] HEAD -> chat\/s1 \(a chat's turn is running a command in this branch's working tree/);
    await bucket.putTreeState(project, record.generation, clean, leased);

    const dirty = await git(folder, ["push", "origin", "HEAD:chat/s2"]);
    expect(dirty.stderr).toMatch(/\[remote rejected\] HEAD -> chat\/s2 \(this branch's working tree has changes not committed by its chat/);

    const moved = await git(folder, ["push", "origin", "HEAD:chat/s1"]);
    expect(moved.code).toBe(0);
    expect((await refsOf(project))["refs/heads/chat/s1"]).toBe(head);
    // the chat's next turn sees the pushed commit: its working tree moved with its branch, and holds no lease
    const view = await system.trees.view({ project, session: "s1" });
    expect(view?.state).toMatchObject({ head, detached: false, updated_by: { user: "alice" } });
    expect(view?.state.lease).toBeUndefined();
    expect(view ? (await system.trees.lookup(view, "fix.js")).found : undefined).toBe("entry");
  });

  it("refuses a pushed tree naming .git, stores nothing of it, and runs no hook a push brings (case 92)", async () => {
    const project = await system.attached(bundle);
    const { url } = await gitServer();
    const folder = await clone(`${url}/${project}.git`, `${project}-dotgit`);
    const marker = path.join(work, `ran-${randomUUID()}`);
    const hook = `#!/bin/sh\ntouch ${marker}\n`;
    // a tree holding .git/config with an fsmonitor and a hook, made by hand: git's index never holds `.git`
    const blob = (content: string) => testGit(folder, ["hash-object", "-w", "--stdin"], content).trim();
    const config = blob(`[core]\n\tfsmonitor = ${path.join(work, "fsmonitor.sh")}\n\thooksPath = hooks\n`);
    const hooks = testGit(folder, ["mktree"], `100755 blob ${blob(hook)}\tpost-receive\n100755 blob ${blob(hook)}\tpre-receive\n`).trim();
    const dotGit = testGit(folder, ["mktree"], `100644 blob ${config}\tconfig\n040000 tree ${hooks}\thooks\n`).trim();
    const root = testGit(folder, ["mktree"], `040000 tree ${dotGit}\t.git\n100644 blob ${blob("x")}\tREADME.md\n`).trim();
    const commit = testGit(folder, ["commit-tree", root, "-p", "HEAD", "-m", "hostile"]).trim();
    const before = await refsOf(project);
    const attached = await system.repositories.attached(project);
    const packsBefore = (await attached?.bucket.packList(project, attached.record.generation))?.value?.packs.length;
    const refused = await git(folder, ["push", "origin", `${commit}:refs/heads/main`]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/remote unpack failed: git's checks refuse an object \(hasDotgit: contains '.git'\); nothing was stored/);
    expect(await refsOf(project)).toEqual(before);
    expect((await attached?.bucket.packList(project, attached.record.generation))?.value?.packs.length).toBe(packsBefore);

    // hooks and a core.hooksPath as ordinary files of a pushed commit: taken as files, never run
    await writeFile(path.join(folder, "post-receive"), hook, { mode: 0o755 });
    await writeFile(path.join(folder, "config"), "[core]\n\thooksPath = .\n");
    await git(folder, ["add", "-A"]);
    await git(folder, ["commit", "-q", "-m", "files named like hooks"]);
    expect((await git(folder, ["push", "origin", "main"])).code).toBe(0);
    expect((await git(folder, ["pull", "-q"])).code).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });
});
