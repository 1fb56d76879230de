/**
 * What a project with a git repository shows beyond the files API, through the whole system (docs/repositories.md
 * "Attachments in a chat", "The project's overview, resources and archive"), on a real BMAD 6.12 install and the
 * scripted model: a chat message's `{path}` attachment is the chat's working tree's file and a pasted one lands in
 * the chat's scratch space, not in the repository; the overview, the MCP resources and the archive show the default
 * branch; a 50,000-file repository lists whole through the files API. Viewers read, non-members get 404. Security
 * cases 350–355.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachBundle } from "@agent-orchestrator/testing/attach-bundle";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { makeTestRepository, testGit } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token", mallory: "mallory-token" };
type Member = keyof typeof tokens;
const prd = "_bmad-output/planning-artifacts/prd.md";
const bigFiles = 50_000;
let system: TestSystem;
let project: string;
let big: string;
let main: string;
let scratch: string;
const removals: Array<() => Promise<void>> = [];
const clients: Client[] = [];

async function call(user: Member, method: string, route: string, json?: unknown): Promise<Response> {
  return fetch(`${system.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
}

async function api(user: Member, method: string, route: string, json?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await call(user, method, route, json);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function mcp(user: Member): Promise<Client> {
  const client = new Client({ name: "repository-views-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${system.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens[user]}` } } }));
  clients.push(client);
  return client;
}

/** The names in a zip, as unzip reads them (folders left out). */
async function zipNames(zip: ArrayBuffer): Promise<string[]> {
  const file = path.join(scratch, `${Math.random().toString(36).slice(2)}.zip`);
  await writeFile(file, Buffer.from(zip));
  return execFileSync("unzip", ["-Z1", file], { encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\n")
    .filter((name) => name !== "" && !name.endsWith("/"))
    .sort();
}

/** A bundle of one commit holding `count` files with one content, made by git fast-import (no files on disk). */
function bundleOfManyFiles(folder: string, count: number): string {
  testGit(folder, ["init", "-q"]);
  const lines = ["blob", "mark :1", "data 2", "x", "commit refs/heads/main", "author Test <test@example.com> 1767225600 +0000", "committer Test <test@example.com> 1767225600 +0000", "data 5", "many", ""];
  for (let index = 0; index < count; index++) lines.push(`M 100644 :1 src/module-${String(index % 500).padStart(3, "0")}/file-${String(index).padStart(5, "0")}.txt`);
  testGit(folder, ["fast-import", "--quiet"], `${lines.join("\n")}\n`);
  const bundle = path.join(folder, "many.bundle");
  testGit(folder, ["bundle", "create", "-q", bundle, "--all"]);
  return bundle;
}

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  scratch = await mkdtemp(path.join(tmpdir(), "ao-repository-views-"));
  removals.push(() => rm(scratch, { recursive: true, force: true }));
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root, AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",") } });
  const made = await makeTestRepository({
    "README.md": "# Calc\n",
    "src/add.js": "export const add = (a, b) => a + b;\n",
    [prd]: "# PRD\n\nThe calculator.\n",
    "_bmad/bmm/config.yaml": "project_name: from-the-repository\n",
    ".env": "TOKEN=secret\n",
    "link-out": { link: "/etc/passwd" },
  });
  removals.push(made.remove);
  main = testGit(made.folder, ["rev-parse", "HEAD"]).trim();
  testGit(made.folder, ["bundle", "create", "-q", made.bundle, "--all"]);
  project = (await api("alice", "POST", "/api/projects", { name: "Calc" })).body["project"].id as string;
  await api("alice", "PUT", `/api/projects/${project}/members/bob`, { role: "editor" });
  await api("alice", "PUT", `/api/projects/${project}/members/carol`, { role: "viewer" });
  expect((await attachBundle(system.url, project, made.bundle, tokens.alice)).status).toBe(201);
  const many = path.join(scratch, "many");
  await mkdir(many);
  big = (await api("alice", "POST", "/api/projects", { name: "Many files" })).body["project"].id as string;
  expect((await attachBundle(system.url, big, bundleOfManyFiles(many, bigFiles), tokens.alice)).status).toBe(201);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await system?.stop();
  for (const remove of removals) await remove();
});

describe("chat attachments in a project with a git repository", { shuffle: false }, () => {
  let session: string;

  it("attaches a file of the chat's working tree by its path and keeps a pasted one in the chat's scratch space, which the model reads", async () => {
    system.model.enqueue({ toolCalls: [{ name: "read_file", arguments: { file_path: "{session-folder}/inputs/notes.md" } }] });
    const sent = await api("bob", "POST", "/api/chat", {
      agent_id: "bmm/pm",
      project_id: project,
      message: "Compare my notes with the code",
      attachments: [{ path: "{project-root}/src/add.js" }, { name: "notes.md", content_base64: Buffer.from("# Notes\n\nadd must take three numbers\n").toString("base64") }],
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    session = sent.body["session_id"] as string;
    expect(JSON.parse(sent.body["response"] as string)).toMatchObject({ success: true, content: expect.stringContaining("add must take three numbers") });
    // the model was told where each file is, as its tools name them
    const told = JSON.stringify(system.model.requests.at(-2)?.body);
    expect(told).toContain("- {project-root}/src/add.js\\n- {session-folder}/inputs/notes.md");
    const chat = await api("bob", "GET", `/api/sessions/${session}`);
    expect(chat.body["session"]?.messages?.[0]?.attachments ?? chat.body["messages"]?.[0]?.attachments).toEqual([{ path: "src/add.js" }, { path: "inputs/notes.md", folder: "session" }]);
  });

  it("writes nothing into the repository: the chat's branch does not exist, the default branch has no inputs/, the chat's files hold the note (case 350)", async () => {
    const listed = await api("carol", "GET", `/api/projects/${project}/files?prefix=inputs/`);
    expect(listed.body).toMatchObject({ success: true, branch: "main", commit: main, files: [] });
    expect((await api("carol", "GET", `/api/projects/${project}/files?branch=${encodeURIComponent(`chat/${session}`)}`)).body["error"]?.code).toBe("BRANCH_NOT_FOUND");
    const scratchFiles = await api("bob", "GET", `/api/sessions/${session}/files`);
    expect(JSON.stringify(scratchFiles.body)).toContain("inputs/notes.md");
  });

  it("attaches a file only the chat's working tree has, uncommitted, in a continued chat", async () => {
    system.model.enqueue({ toolCalls: [{ name: "save_output", arguments: { file_path: "{project-root}/docs/draft.md", content: "# Draft\n" } }] });
    expect((await api("bob", "POST", "/api/chat", { agent_id: "bmm/pm", session_id: session, message: "save a draft" })).status).toBe(200);
    const attached = await api("bob", "POST", "/api/chat", { agent_id: "bmm/pm", session_id: session, message: "read the draft", attachments: [{ path: "docs/draft.md" }] });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    // another chat starts from the default branch, which has no draft
    const other = await api("bob", "POST", "/api/chat", { agent_id: "bmm/pm", project_id: project, message: "read the draft", attachments: [{ path: "docs/draft.md" }] });
    expect(other).toMatchObject({ status: 404, body: { error: { code: "FILE_NOT_FOUND" } } });
  });

  it("refuses what the tools would not open, a viewer's attachments and a name no file may have, never naming a host path (case 350)", async () => {
    for (const [attachment, code] of [
      [{ path: "link-out" }, "FILE_NOT_FOUND"],
      [{ path: "_bmad/bmm/config.yaml" }, "FILE_NOT_FOUND"],
      [{ path: "../../etc/passwd" }, "INVALID_PATH"],
      [{ name: ".env", content_base64: Buffer.from("x").toString("base64") }, "INVALID_PATH"],
    ] as const) {
      const refused = await api("bob", "POST", "/api/chat", { agent_id: "bmm/pm", project_id: project, message: "read", attachments: [attachment] });
      expect(refused.body["error"]?.code, JSON.stringify(attachment)).toBe(code);
      expect(JSON.stringify(refused.body)).not.toMatch(/root:|\/tmp\/|ao-repositories/);
    }
    const viewer = await api("carol", "POST", "/api/chat", { agent_id: "bmm/pm", project_id: project, message: "read", attachments: [{ path: "README.md" }] });
    expect(viewer).toMatchObject({ status: 403, body: { error: { code: "PROJECT_FORBIDDEN" } } });
    expect((await api("mallory", "POST", "/api/chat", { agent_id: "bmm/pm", project_id: project, message: "read", attachments: [{ path: "README.md" }] })).status).toBe(404);
  });
});

describe("the overview, the MCP resources and the archive of a project with a git repository", () => {
  it("shows the default branch's documents in the overview to any member; a non-member gets 404 (case 351)", async () => {
    const overview = await api("carol", "GET", `/api/projects/${project}/overview`);
    expect(overview.status).toBe(200);
    const artifacts = (overview.body["overview"].phases as Array<{ artifacts: Array<{ path: string; author: { user: string } }> }>).flatMap((phase) => phase.artifacts);
    expect(artifacts).toEqual([expect.objectContaining({ kind: "prd", path: prd, author: { user: "Test" }, updated_at: "2026-01-01T00:00:00.000Z" })]);
    expect((await api("mallory", "GET", `/api/projects/${project}/overview`)).status).toBe(404);
  });

  it("lists and reads the default branch's files as MCP resources, never a secret, a link or the repository's _bmad/ (case 352)", async () => {
    const client = await mcp("carol");
    const names: string[] = [];
    // the projects' files come first, then the installed BMAD files: the pages up to the first installed file
    for (let cursor: string | undefined, more = true; more; ) {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      names.push(...page.resources.filter((resource) => resource.uri.includes(project)).map((resource) => resource.name));
      cursor = page.nextCursor;
      more = cursor !== undefined && page.resources.every((resource) => resource.uri.startsWith("bmad://project/"));
    }
    expect(names).toEqual(["README.md", prd, "src/add.js"]);
    const uri = (file: string) => `bmad://project/${project}/${file}`;
    expect((await client.readResource({ uri: uri("src/add.js") })).contents[0]).toMatchObject({ text: "export const add = (a, b) => a + b;\n" });
    for (const hidden of [".env", "link-out", "_bmad/bmm/config.yaml"]) await expect(client.readResource({ uri: uri(hidden) }), hidden).rejects.toThrow("Resource not found");
    const outsider = await mcp("mallory");
    await expect(outsider.readResource({ uri: uri("README.md") })).rejects.toThrow("Resource not found");
  });

  it("names, in the MCP chat tool's result, the files a turn changed in the chat's working tree", async () => {
    const client = await mcp("bob");
    system.model.enqueue({ toolCalls: [{ name: "save_output", arguments: { file_path: "{project-root}/docs/mcp.md", content: "# From MCP\n" } }] });
    const result = await client.callTool({ name: "chat", arguments: { agent_id: "bmm/pm", project_id: project, message: "save it" } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { files: unknown[] }).files).toEqual([expect.objectContaining({ path: "{project-root}/docs/mcp.md", size: 11 })]);
  });

  it("exports the default branch as a zip, named and headed by its branch and commit, holding only what the files API lists (case 353)", async () => {
    const response = await call("carol", "GET", `/api/projects/${project}/archive`);
    expect(response.status).toBe(200);
    expect([response.headers.get("content-type"), response.headers.get("x-repository-branch"), response.headers.get("x-repository-commit")]).toEqual(["application/zip", "main", main]);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="Calc-main-${main.slice(0, 12)}.zip"`);
    expect(await zipNames(await response.arrayBuffer())).toEqual(["README.md", prd, "src/add.js"]);
    const outsider = await api("mallory", "GET", `/api/projects/${project}/archive`);
    expect(outsider).toMatchObject({ status: 404, body: { error: { code: "PROJECT_NOT_FOUND" } } });
  });
});

describe("a repository of 50,000 files", () => {
  it("lists whole through the files API from the tool-runner's pages, one state, in path order (case 354)", async () => {
    const whole = await api("alice", "GET", `/api/projects/${big}/files`);
    expect(whole.status).toBe(200);
    expect(whole.body["truncated"]).toBeUndefined();
    const files = whole.body["files"] as Array<{ path: string }>;
    expect(files.length).toBe(bigFiles);
    expect(new Set(files.map((file) => file.path)).size).toBe(bigFiles);
    expect(files.map((file) => file.path)).toEqual(files.map((file) => file.path).sort());
    expect(whole.body["bytes"]).toBe(2 * bigFiles);
  }, 120_000);

  it("downloads a file and exports the branch streamed through the uploads store, with no host path in any answer (case 355)", async () => {
    const download = await call("alice", "GET", `/api/projects/${big}/files/src/module-007/file-00007.txt?download`);
    expect([download.status, await download.text()]).toEqual([200, "x\n"]);
    const archive = await call("alice", "GET", `/api/projects/${big}/archive`);
    expect(archive.status).toBe(200);
    expect((await zipNames(await archive.arrayBuffer())).length).toBe(bigFiles);
    const missing = await api("alice", "GET", `/api/projects/${big}/files/src/nope.txt?download`);
    expect(missing).toMatchObject({ status: 404, body: { error: { code: "FILE_NOT_FOUND" } } });
    expect(JSON.stringify(missing.body)).not.toMatch(/\/tmp\/|ao-repositories|cache/);
  }, 120_000);
});
