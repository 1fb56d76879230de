/**
 * A project's git repository through the whole system (docs/repositories.md), on a real BMAD 6.12 install and
 * the scripted model: the owner attaches a bundle of a small Node project; the file tools read and change the
 * chat's working tree (with the installed BMAD files still overlaid), never follow a link of the repository
 * (case 91), and a change made through one tool-runner is read through another after the first was SIGKILLed;
 * only the owner attaches and detaches, members see it, others get 404; a clone over HTTP with a credential
 * keeps the credential out of every answer, audit record and log line (case 94); a detach brings the project's
 * stored files back. The SIGKILLed tool-runner's cache folder is removed by the next one (case 356), and a bundle
 * trickled slower than the gateway's default bound on a request arrives within its own (case 358).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readdir, readFile } from "node:fs/promises";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startGitHttpRemote, type GitHttpRemote } from "@agent-orchestrator/testing/git-http-remote";
import { healthyGatewayUrl, startServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { makeTestRepository } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token", mallory: "mallory-token" };
const secret = "s3cret-credential-9f8e7d";
const bundleMaxBytes = 256 * 1024;
let system: TestSystem;
let project: string;
let bundle: Buffer;
let remote: GitHttpRemote;
let cacheRoot: string;
const removals: Array<() => Promise<void>> = [];

async function api(user: keyof typeof tokens, method: string, route: string, body?: string | Uint8Array, type?: string) {
  const response = await fetch(`${system.url}${route}`, { method, headers: { authorization: `Bearer ${tokens[user]}`, ...(type ? { "content-type": type } : {}) }, ...(body === undefined ? {} : { body }) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** alice's `PUT` of `body` with a Content-Length, or chunked (no length: the gateway learns the size as it reads). */
async function putRaw(route: string, body: Buffer, chunked: boolean): Promise<{ status: number; body: Record<string, any> }> {
  const headers = { authorization: `Bearer ${tokens.alice}`, "content-type": "application/x-git-bundle", ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.byteLength) }) };
  const request = http.request(`${system.url}${route}`, { method: "PUT", headers });
  const answered = once(request, "response") as Promise<[http.IncomingMessage]>;
  // the gateway answers before it has read the whole body and closes the connection: the rest may not be sent
  request.on("error", () => undefined);
  request.end(body);
  const [response] = await answered;
  const parts: Buffer[] = [];
  for await (const part of response) parts.push(part as Buffer);
  return { status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, any> };
}

/** The cache folders in the cache root that process `pid` made (by their owner.json). */
async function cacheFoldersOf(pid: number | undefined): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(cacheRoot)) {
    const owner = await readFile(path.join(cacheRoot, name, "owner.json"), "utf8").catch(() => "{}");
    if ((JSON.parse(owner) as { pid?: number }).pid === pid) found.push(name);
  }
  return found;
}

/** alice's request to `url` with `body` sent in ten parts spread over `overMs`; the status and text of the answer. */
async function trickle(url: string, method: string, body: Buffer, type: string, overMs: number): Promise<{ status: number; text: string }> {
  const request = http.request(url, { method, headers: { authorization: `Bearer ${tokens.alice}`, "content-type": type, "content-length": String(body.byteLength) } });
  const answered = once(request, "response") as Promise<[http.IncomingMessage]>;
  request.on("error", () => undefined);
  void (async () => {
    const part = Math.ceil(body.byteLength / 10);
    for (let at = 0; at < body.byteLength && !request.destroyed; at += part) {
      await new Promise((resolve) => setTimeout(resolve, overMs / 10));
      request.write(body.subarray(at, at + part));
    }
    request.end();
  })();
  const [response] = await answered;
  let text = "";
  for await (const chunk of response) text += (chunk as Buffer).toString("utf8");
  return { status: response.statusCode ?? 0, text };
}

/** One turn of the developer agent that makes one tool call; the tool's result as the model saw it. */
async function tool(name: string, args: Record<string, unknown>, session?: string): Promise<Record<string, any>> {
  const reply = await api("alice", "POST", "/api/chat", JSON.stringify({ agent_id: "bmm/analyst", project_id: project, ...(session ? { session_id: session } : {}), message: `call ${name}\n${JSON.stringify(args)}` }), "application/json");
  expect(reply.body["success"], JSON.stringify(reply.body)).toBe(true);
  return { ...(JSON.parse(reply.body["response"] as string) as Record<string, any>), session_id: reply.body["session_id"] };
}

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  cacheRoot = await mkdtemp(path.join(tmpdir(), "ao-repository-cache-"));
  removals.push(() => rm(cacheRoot, { recursive: true, force: true }));
  system = await startTestSystem({
    responder: toolCallResponder,
    env: {
      BMAD_ROOT: root,
      AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","),
      REPOSITORY_ALLOW_HTTP: "true",
      REPOSITORY_BUNDLE_MAX_BYTES: String(bundleMaxBytes),
      REPOSITORY_CACHE_DIR: cacheRoot,
    },
  });
  const made = await makeTestRepository({
    "package.json": '{ "name": "calc", "type": "module", "scripts": { "test": "node --test" } }\n',
    "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
    "test/add.test.js": 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\ntest("adds", () => assert.equal(add(2, 3), 5));\n',
    "docs/stories/1-1-add.md": "# Story 1.1: add two numbers\n",
    "leak": { link: "/etc/passwd" },
    "etc": { link: "/etc" },
  });
  removals.push(made.remove);
  bundle = await readFile(made.bundle);
  const served = await mkdtemp(path.join(tmpdir(), "ao-remote-"));
  removals.push(() => rm(served, { recursive: true, force: true }));
  await mkdir(path.join(served, "app.git"));
  execFileSync("git", ["clone", "-q", "--bare", made.folder, path.join(served, "app.git")]);
  remote = await startGitHttpRemote(served, { username: "ci", password: secret });
  const created = await api("alice", "POST", "/api/projects", JSON.stringify({ name: "Calc" }), "application/json");
  project = created.body["project"].id as string;
  await api("alice", "PUT", `/api/projects/${project}/members/bob`, JSON.stringify({ role: "editor" }), "application/json");
  await api("alice", "PUT", `/api/projects/${project}/members/carol`, JSON.stringify({ role: "viewer" }), "application/json");
  // a file the project stored before it had a repository
  await api("alice", "PUT", `/api/projects/${project}/files/notes.md`, "stored before\n", "text/markdown");
}, 240_000);

afterAll(async () => {
  await remote?.close();
  await system?.stop();
  await Promise.all(removals.map((remove) => remove()));
});

describe("a project's repository", { shuffle: false }, () => {
  it("is attached by its owner from a bundle, and refused to an editor, a viewer and a stranger", async () => {
    for (const [user, status] of [["bob", 403], ["carol", 403], ["mallory", 404]] as const) {
      expect((await api(user, "PUT", `/api/projects/${project}/repository`, bundle, "application/x-git-bundle")).status, user).toBe(status);
    }
    const attached = await api("alice", "PUT", `/api/projects/${project}/repository`, bundle, "application/x-git-bundle");
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);
    expect(attached.body["repository"]).toMatchObject({ default_branch: "main", remote: null, has_credential: false, created_by: "alice" });
    expect((await api("alice", "PUT", `/api/projects/${project}/repository`, bundle, "application/x-git-bundle")).body["error"].code).toBe("REPOSITORY_EXISTS");
    expect((await api("carol", "GET", `/api/projects/${project}/repository`)).body["repository"].branches).toEqual([{ name: "main", head: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
    expect((await api("mallory", "GET", `/api/projects/${project}/repository`)).status).toBe(404);
  });

  it("refuses a bundle past REPOSITORY_BUNDLE_MAX_BYTES with 413, declared or streamed without a length, and keeps nothing (case 333)", async () => {
    const other = (await api("alice", "POST", "/api/projects", JSON.stringify({ name: "Too large" }), "application/json")).body["project"].id as string;
    const oversized = randomBytes(bundleMaxBytes + 4096);
    for (const chunked of [false, true]) {
      const refused = await putRaw(`/api/projects/${other}/repository`, oversized, chunked);
      expect(refused, `chunked: ${chunked}`).toMatchObject({ status: 413, body: { error: { code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("REPOSITORY_BUNDLE_MAX_BYTES") } } });
    }
    expect((await api("alice", "GET", `/api/projects/${other}/repository`)).body["repository"]).toBeNull();
  });

  it("is {project-root} for the file tools, with the installed BMAD files still there", async () => {
    const read = await tool("read_file", { file_path: "{project-root}/src/add.js" });
    expect(read["content"]).toContain("return a - b;");
    const listed = await tool("list_files", { path: "{project-root}" });
    const names = (listed["entries"] as Array<{ name: string }>).map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(["_bmad", "docs", "package.json", "src", "test"]));
    expect(names).not.toContain("leak");
    const found = await tool("find_files", { pattern: "**/*.js" });
    expect((found["files"] as Array<{ path: string }>).map((file) => file.path).sort()).toEqual(["{project-root}/src/add.js", "{project-root}/test/add.test.js"]);
    const searched = await tool("search_files", { pattern: "Story 1\\.1", path: "{project-root}/docs" });
    expect(searched["hits"]).toEqual(["{project-root}/docs/stories/1-1-add.md:1: # Story 1.1: add two numbers"]);
    expect((await tool("read_file", { file_path: "{project-root}/_bmad/bmm/config.yaml" }))["success"]).toBe(true);
  });

  it("never follows a symbolic link of the repository (case 91)", async () => {
    for (const file of ["{project-root}/leak", "{project-root}/etc/passwd"]) {
      const refused = await tool("read_file", { file_path: file });
      expect(refused["error"].code, file).toBe("SYMLINK_ESCAPE");
      expect(JSON.stringify(refused)).not.toContain("root:x:0");
    }
    expect((await tool("save_output", { file_path: "{project-root}/etc/x.txt", content: "x" }))["error"].code).toBe("SYMLINK_ESCAPE");
  });

  it("keeps an edit through one tool-runner for the next call through another, after the first was SIGKILLed", async () => {
    const edited = await tool("edit_file", { file_path: "{project-root}/src/add.js", old_string: "a - b", new_string: "a + b" });
    expect(edited["success"], JSON.stringify(edited)).toBe(true);
    const first = system.processes.find((service) => service.name === "tool-runner");
    const killedFolders = await cacheFoldersOf(first?.child.pid);
    expect(killedFolders).toHaveLength(1);
    await first?.stop("SIGKILL");
    expect(await cacheFoldersOf(first?.child.pid)).toEqual(killedFolders);
    const second = startServiceProcess("tool-runner", system.env);
    system.processes.push(second);
    await second.waitForLine((line) => line["msg"] === "tool-runner serving");
    // what the killed one left is removed by the next to start on the same cache root (case 356)
    await second.waitForLine((line) => line["msg"] === "removed the repository cache folders that stopped tool-runners left");
    expect(await cacheFoldersOf(first?.child.pid)).toEqual([]);
    const read = await tool("read_file", { file_path: "{project-root}/src/add.js" }, edited["session_id"] as string);
    expect(read["content"]).toContain("return a + b;");
    const shown = await api("bob", "GET", `/api/projects/${project}/repository`);
    expect(shown.body["repository"].working_trees).toEqual([expect.objectContaining({ branch: `chat/${edited["session_id"]}`, clean: false })]);
    const audit = await api("alice", "GET", `/api/projects/${project}/audit`);
    expect(audit.body["records"]).toEqual(expect.arrayContaining([expect.objectContaining({ action: "file_written", target: "src/add.js", actor: "alice" })]));
    // another chat works on its own branch: it sees the default branch's file
    expect((await tool("read_file", { file_path: "{project-root}/src/add.js" }))["content"]).toContain("return a - b;");
  });

  it("takes a bundle trickled slower than the gateway's default bound on a request, within its own, and cuts a trickled body elsewhere (case 358)", async () => {
    const slow = startServiceProcess("gateway", { ...system.env, PORT: "0", HTTP_REQUEST_TIMEOUT_MS: "1000" });
    system.processes.push(slow);
    const url = await healthyGatewayUrl(slow, 60_000);
    const other = (await api("alice", "POST", "/api/projects", JSON.stringify({ name: "Slow link" }), "application/json")).body["project"].id as string;
    const attached = await trickle(`${url}/api/projects/${other}/repository`, "PUT", bundle, "application/x-git-bundle", 3_000);
    expect(attached.status, attached.text).toBe(201);
    expect((await api("alice", "GET", `/api/projects/${other}/repository`)).body["repository"]).toMatchObject({ default_branch: "main" });
    const cut = await trickle(`${url}/api/projects`, "POST", Buffer.from(JSON.stringify({ name: "Never made" })), "application/json", 3_000);
    expect(cut.status).toBe(408);
    await slow.stop();
  });

  it("is detached by its owner only, and the project's stored files show again", async () => {
    // while the repository is attached, a change of the stored files would go where nobody sees it: refused
    expect((await api("alice", "PUT", `/api/projects/${project}/files/notes.md`, "changed meanwhile\n", "text/markdown")).body["error"].code).toBe("REPOSITORY_FILES_READ_ONLY");
    expect((await tool("read_file", { file_path: "{project-root}/notes.md" }))["error"].code).toBe("FILE_NOT_FOUND");
    expect((await api("bob", "DELETE", `/api/projects/${project}/repository`)).status).toBe(403);
    expect((await api("alice", "DELETE", `/api/projects/${project}/repository`)).body).toEqual({ success: true, repository: null });
    expect((await api("alice", "GET", `/api/projects/${project}/repository`)).body["repository"]).toBeNull();
    expect((await tool("read_file", { file_path: "{project-root}/notes.md" }))["content"]).toBe("stored before\n");
  });

  it("clones from a remote with a credential that no answer, audit record or log line shows (case 94)", async () => {
    const refusedHttps = await api("alice", "PUT", `/api/projects/${project}/repository`, JSON.stringify({ url: `${remote.url}app.git`, username: "ci", credential: "wrong" }), "application/json");
    expect(refusedHttps.body["error"]).toMatchObject({ code: "REPOSITORY_REFUSED", message: expect.stringContaining("refused the credential") });
    const inUrl = await api("alice", "PUT", `/api/projects/${project}/repository`, JSON.stringify({ url: `http://ci:${secret}@127.0.0.1:1/app.git` }), "application/json");
    expect(inUrl.body["error"].code).toBe("REPOSITORY_REFUSED");
    const cloned = await api("alice", "PUT", `/api/projects/${project}/repository`, JSON.stringify({ url: `${remote.url}app.git`, username: "ci", credential: secret }), "application/json");
    expect(cloned.status, JSON.stringify(cloned.body)).toBe(201);
    expect(cloned.body["repository"]).toMatchObject({ default_branch: "main", remote: { url: `${remote.url}app.git` }, has_credential: true });
    expect(remote.authorizations).toContain(`Basic ${Buffer.from(`ci:${secret}`).toString("base64")}`);
    expect((await tool("read_file", { file_path: "{project-root}/src/add.js" }))["content"]).toContain("return a - b;");
    const audit = await api("alice", "GET", `/api/projects/${project}/audit`);
    expect(JSON.stringify(audit.body)).toContain("a clone of");
    const everything = [JSON.stringify(cloned.body), JSON.stringify(await api("alice", "GET", `/api/projects/${project}/repository`)), JSON.stringify(audit.body), ...system.processes.flatMap((service) => service.lines.map((line) => JSON.stringify(line)))];
    for (const text of everything) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(`ci:${secret}`).toString("base64"));
    }
  });
});
