import { randomUUID } from "node:crypto";
import { writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, subjects, type ToolName } from "@agent-orchestrator/shared/wire";
import { connect, type NatsConnection } from "nats";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { toolRunnerEnvSchema, type ToolRunnerConfig } from "./config.js";
import type { SandboxHooks } from "./sandbox/index.js";
import { createSandboxFixture, type SandboxFixture } from "./testing/sandbox-fixture.js";
import { startToolRunner, type ToolRunner } from "./tool-runner-service.js";

const logger = createLogger("tool-runner-test", "silent");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

let connection: NatsConnection;
let fixture: SandboxFixture;
let prefix: string;
let runner: ToolRunner | undefined;
const hooks: SandboxHooks = {};

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});
afterAll(() => connection.drain());

beforeEach(async () => {
  delete hooks.beforeOpen;
  fixture = await createSandboxFixture();
  // a fresh prefix per test: test files share one NATS server, and their tool-runners must not share queues
  prefix = `t${randomUUID().slice(0, 8)}`;
});
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
  // the buckets the service made, named after its prefix
  const names = jetStreamNames(`${prefix}.`);
  const manager = await connection.jetstreamManager();
  const streams = [`KV_${names.fileIndexBucket}`, `KV_${names.fileRevisionsBucket}`, `OBJ_${names.fileContentsStore}`, `KV_${names.toolCallsBucket}`];
  await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
  await fixture.cleanup();
});

async function start(env: Record<string, string> = {}): Promise<ToolRunnerConfig> {
  const config = toolRunnerEnvSchema.parse({ BMAD_ROOT: fixture.project, OUTPUT_ROOT: path.join(fixture.base, "out"), SCRIPTS: "off", ...env });
  runner = await startToolRunner({
    connection,
    config,
    logger,
    subjectPrefix: prefix,
    sandboxHooks: {
      beforeOpen: (hostPath) => hooks.beforeOpen?.(hostPath),
    },
  });
  return config;
}

async function send(subject: string, body: unknown, raw = false): Promise<Record<string, any>> {
  const data = raw ? encoder.encode(String(body)) : encoder.encode(JSON.stringify(body));
  const reply = await connection.request(`${prefix}.${subject}`, data, { timeout: 10_000 });
  return JSON.parse(decoder.decode(reply.data)) as Record<string, any>;
}

function callTool(tool: ToolName, args: unknown, callId: string = randomUUID()): Promise<Record<string, any>> {
  return send(subjects.tool(tool), { call_id: callId, context: fixture.toolContext, arguments: args });
}

describe("tool-runner over NATS", () => {
  it("answers read_file with the file and a virtual path", async () => {
    await start();
    expect(await callTool("read_file", { file_path: "{bundle-root}/config.yaml" })).toEqual({
      success: true,
      path: "{bundle-root}/config.yaml",
      content: "user_name: Ada\n",
      size: 15,
      total_lines: 1,
      truncated: false,
    });
  });

  it("answers a denial with a code and 'Access denied', never a host path", async () => {
    await start();
    const reply = await callTool("read_file", { file_path: "../outside/secret" });
    expect(reply).toEqual({ success: false, error: { code: "PATH_OUTSIDE_ROOT", message: "Access denied" } });
  });

  it("saves output as a revision and lists it", async () => {
    await start();
    expect(await callTool("save_output", { file_path: "{session-folder}/brief.md", content: "# Brief" })).toEqual({
      success: true,
      path: "{session-folder}/brief.md",
      size: 7,
      revision: 1,
    });
    const listing = await callTool("list_files", { path: "{session-folder}" });
    expect(listing).toMatchObject({ success: true, path: "{session-folder}", truncated: false });
    expect(listing["entries"]).toEqual(expect.arrayContaining([{ name: "brief.md", type: "file", size: 7 }]));
  });

  it("preloads a workflow", async () => {
    await start();
    await mkdir(path.join(fixture.bundle, "workflows", "brief"), { recursive: true });
    await writeFile(
      path.join(fixture.bundle, "workflows", "brief", "workflow.yaml"),
      'name: brief\ndescription: A brief\nconfig_source: "{bundle-root}/config.yaml"\nuser_name: "{config_source}:user_name"\ninstructions: "{bundle-root}/workflows/brief/instructions.md"\n',
    );
    const reply = await callTool("preload_workflow", { workflow_path: "{bundle-root}/workflows/brief/workflow.yaml" });
    expect(reply).toMatchObject({
      success: true,
      workflow: { name: "brief", description: "A brief", variables: { user_name: "Ada" } },
      files: [
        { path: "{bundle-root}/workflows/brief/instructions.md", content: "# Brief\n", truncated: false },
        { path: "{core-root}/tasks/workflow.md", truncated: false },
      ],
      missing: [],
      note: "These files are loaded; do not read them again with read_file.",
    });
  });

  it("answers VALIDATION_ERROR for bad tool arguments", async () => {
    await start();
    const reply = await callTool("read_file", { path: "{bundle-root}/config.yaml" });
    expect(reply).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR" } });
  });

  it("answers BAD_REQUEST for invalid JSON or a wrong schema, and keeps serving (docs/security.md case 66)", async () => {
    await start();
    expect(await send(subjects.tool("read_file"), "{not json", true)).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await send(subjects.tool("read_file"), { call_id: "x", arguments: {} })).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await send(subjects.tool("read_file"), { call_id: "x", context: { ...fixture.toolContext, session_id: "../x" }, arguments: {} })).toMatchObject({
      success: false,
      error: { code: "BAD_REQUEST" },
    });
    expect(await send(subjects.tool("read_file"), { call_id: "x", context: { ...fixture.toolContext, project_id: "p1.>" }, arguments: {} })).toMatchObject({
      success: false,
      error: { code: "BAD_REQUEST" },
    });
    expect(await send(subjects.files("read"), { space: { kind: "project", id: "p1" } })).toMatchObject({ error: { code: "BAD_REQUEST" } });
    expect(await callTool("read_file", { file_path: "{bundle-root}/config.yaml" })).toMatchObject({ success: true });
  });

  it("does not execute a retried call_id twice, in flight or after completion", async () => {
    await start();
    const args = { file_path: "{session-folder}/once.md", content: "once" };
    const [first, second] = await Promise.all([callTool("save_output", args, "call-1"), callTool("save_output", args, "call-1")]);
    const third = await callTool("save_output", args, "call-1");
    expect(first).toEqual({ success: true, path: "{session-folder}/once.md", size: 4, revision: 1 });
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    // one write: the file has one revision
    const revisions = await send(subjects.files("revisions"), { space: { kind: "session", id: "s1" }, path: "once.md" });
    expect(revisions["revisions"]).toHaveLength(1);
    expect(await callTool("save_output", { ...args, content: "other" }, "call-1")).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
  });

  it("sheds load with BUSY above TOOL_CONCURRENCY (docs/security.md case 67)", async () => {
    await start({ TOOL_CONCURRENCY: "1" });
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = 0;
    hooks.beforeOpen = () => {
      entered++;
      return blocked;
    };
    const slow = callTool("read_file", { file_path: "{bundle-root}/config.yaml" });
    // the first call holds the one slot
    await expect.poll(() => entered, { timeout: 10_000 }).toBe(1);
    expect(await callTool("read_file", { file_path: "{bundle-root}/config.yaml" })).toMatchObject({ success: false, error: { code: "BUSY" } });
    release();
    expect(await slow).toMatchObject({ success: true });
  });

  it("keeps a read_file reply under the connection's max_payload, marking it truncated", async () => {
    const maxPayload = connection.info?.max_payload ?? 0;
    await start({ READ_MAX_BYTES: String(2 * maxPayload) });
    // quotes double in JSON: the reply would be about 1.8 × max_payload without the cut
    await writeFile(path.join(fixture.bundle, "quotes.md"), '"'.repeat(Math.floor(maxPayload * 0.9)));
    const reply = await callTool("read_file", { file_path: "{bundle-root}/quotes.md" });
    expect(reply).toMatchObject({ success: true, truncated: true, size: Math.floor(maxPayload * 0.9) });
    expect(Buffer.byteLength(JSON.stringify(reply))).toBeLessThanOrEqual(maxPayload);
  });

  it("answers the calls in flight when stopped, then takes no more (docs/security.md case 70)", async () => {
    await start();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = 0;
    hooks.beforeOpen = () => {
      entered++;
      return blocked;
    };
    const calls = [1, 2, 3].map(() => callTool("read_file", { file_path: "{bundle-root}/config.yaml" }));
    // all three are in flight inside the tool-runner when it is told to stop
    await expect.poll(() => entered, { timeout: 10_000 }).toBe(3);
    const stopping = runner?.stop();
    runner = undefined;
    release();
    await stopping;
    for (const reply of await Promise.all(calls)) expect(reply).toMatchObject({ success: true });
    await expect(callTool("read_file", { file_path: "{bundle-root}/config.yaml" })).rejects.toThrow(/503|no responders/i);
  });

  it("serves a project's files on project.files.*: a write, a read, revisions newest first, and what the tools saved", async () => {
    await start();
    const space = { kind: "project", id: "p1" };
    const bob = { user: "bob" };
    const written = await send(subjects.files("write"), { space, path: "docs/brief.md", content: "v1", author: bob });
    expect(written).toMatchObject({ success: true, file: { path: "docs/brief.md", revision: 1, size: 2, author: bob } });
    await send(subjects.files("write"), { space, path: "docs/brief.md", content: "v2", author: { user: "carol" } });
    expect(await send(subjects.files("read"), { space, path: "docs/brief.md" })).toMatchObject({ success: true, content: "v2", truncated: false, file: { revision: 2 } });
    expect(await send(subjects.files("read"), { space, path: "docs/brief.md", revision: 1 })).toMatchObject({ success: true, content: "v1" });
    const revisions = await send(subjects.files("revisions"), { space, path: "docs/brief.md" });
    expect(revisions["revisions"].map((revision: { revision: number; author: { user: string } }) => [revision.revision, revision.author.user])).toEqual([
      [2, "carol"],
      [1, "bob"],
    ]);
    // the model reads a member's upload, and a member reads what the model saved
    expect(await callTool("read_file", { file_path: "{project-root}/docs/brief.md" })).toMatchObject({ success: true, content: "v2" });
    await callTool("save_output", { file_path: "{planning_artifacts}/prd.md", content: "# PRD" });
    const list = await send(subjects.files("list"), { space, prefix: "_bmad-output" });
    expect(list).toMatchObject({ success: true, files: [{ path: "_bmad-output/planning-artifacts/prd.md", size: 5, read_only: false, author: { user: "alice", session_id: "s1" } }] });
  });

  it("answers a bad path on project.files.* with INVALID_PATH or PROTECTED_PATH, a bad request with BAD_REQUEST, and keeps serving (docs/security.md case 66)", async () => {
    await start();
    const space = { kind: "project", id: "p1" };
    for (const bad of ["../p2/docs/x.md", "/etc/passwd", "docs/../../x.md", "a//b.md", "{bundle-root}/config.yaml"]) {
      expect(await send(subjects.files("read"), { space, path: bad })).toMatchObject({ success: false, error: { code: "INVALID_PATH" } });
    }
    expect(await send(subjects.files("write"), { space, path: "docs/.env", content: "K=1", author: { user: "bob" } })).toMatchObject({
      success: false,
      error: { code: "PROTECTED_PATH" },
    });
    expect(await send(subjects.files("read"), { space, path: "" })).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await send(subjects.files("list"), { space: { kind: "project", id: "../p2" } })).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await send(subjects.files("read"), "{not json", true)).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await send(subjects.files("read"), { space, path: "docs/missing.md" })).toMatchObject({ success: false, error: { code: "FILE_NOT_FOUND" } });
    expect(await send(subjects.files("write"), { space, path: "docs/ok.md", content: "ok", author: { user: "bob" } })).toMatchObject({ success: true });
    expect(await send(subjects.files("read"), { space, path: "docs/ok.md" })).toMatchObject({ success: true, content: "ok" });
  });

  it("moves the chats' files of an old OUTPUT_ROOT into their scratch spaces at start", async () => {
    const output = path.join(fixture.base, "out");
    await mkdir(path.join(output, "s1", "notes"), { recursive: true });
    await writeFile(path.join(output, "s1", "notes", "old.md"), "from before projects");
    await writeFile(path.join(output, "s1", "manifest.json"), JSON.stringify({ owner: "alice" }));
    await start();
    expect(await callTool("read_file", { file_path: "{session-folder}/notes/old.md" })).toMatchObject({ success: true, content: "from before projects" });
    const list = await send(subjects.files("list"), { space: { kind: "session", id: "s1" } });
    expect(list["files"].map((file: { path: string }) => file.path)).toEqual(["notes/old.md"]);
  });
});
