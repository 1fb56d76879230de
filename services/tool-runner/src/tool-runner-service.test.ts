import { randomUUID } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { createLogger, SessionManifest, subjects, type ToolName } from "@agent-orchestrator/shared";
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
  delete hooks.beforeRename;
  fixture = await createSandboxFixture();
  // a fresh prefix per test: test files share one NATS server, and their tool-runners must not share queues
  prefix = `t${randomUUID().slice(0, 8)}`;
});
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
  await fixture.cleanup();
});

async function start(env: Record<string, string> = {}): Promise<ToolRunnerConfig> {
  const config = toolRunnerEnvSchema.parse({ BMAD_ROOT: fixture.project, OUTPUT_ROOT: fixture.output, ...env });
  runner = await startToolRunner({
    connection,
    config,
    logger,
    subjectPrefix: prefix,
    sandboxHooks: {
      beforeOpen: (hostPath) => hooks.beforeOpen?.(hostPath),
      beforeRename: (tempPath, target) => hooks.beforeRename?.(tempPath, target),
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
  return send(subjects.tool(tool), { call_id: callId, context: fixture.context, arguments: args });
}

describe("tool-runner over NATS", () => {
  it("answers read_file with the file and a virtual path", async () => {
    await start();
    expect(await callTool("read_file", { file_path: "{bundle-root}/config.yaml" })).toEqual({
      success: true,
      path: "{bundle-root}/config.yaml",
      content: "user_name: Ada\n",
      size: 15,
      truncated: false,
    });
  });

  it("answers a denial with a code and 'Access denied', never a host path", async () => {
    await start();
    const reply = await callTool("read_file", { file_path: "../outside/secret" });
    expect(reply).toEqual({ success: false, error: { code: "PATH_OUTSIDE_ROOT", message: "Access denied" } });
  });

  it("saves output, records it in the manifest, and lists it", async () => {
    await start();
    await send(subjects.sessionManifestUpdate, { session_id: "s1", agent: "coach", bundle: "studio", owner: "alice", status: "running" });
    expect(await callTool("save_output", { file_path: "{session-folder}/brief.md", content: "# Brief" })).toEqual({
      success: true,
      path: "{session-folder}/brief.md",
      size: 7,
    });
    const manifest = SessionManifest.parse(JSON.parse(await readFile(path.join(fixture.session, "manifest.json"), "utf8")));
    expect(manifest).toMatchObject({ agent: "coach", owner: "alice", files: [{ path: "{session-folder}/brief.md", size: 7 }] });
    const listing = await callTool("list_files", { path: "{session-folder}" });
    expect(listing).toMatchObject({ success: true, path: "{session-folder}", truncated: false });
    expect(listing["entries"]).toEqual(expect.arrayContaining([{ name: "brief.md", type: "file", size: 7 }]));
  });

  it("preloads a workflow and records it in the manifest", async () => {
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
    const manifest = JSON.parse(await readFile(path.join(fixture.session, "manifest.json"), "utf8")) as SessionManifest;
    expect(manifest.workflows).toEqual([{ path: "{bundle-root}/workflows/brief/workflow.yaml", started_at: expect.any(String) }]);
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
    expect(await send(subjects.tool("read_file"), { call_id: "x", context: { session_id: "../x", bundle_path: "b" }, arguments: {} })).toMatchObject({
      success: false,
      error: { code: "BAD_REQUEST" },
    });
    expect(await send(subjects.sessionManifestUpdate, { session_id: "s1" })).toMatchObject({ error: { code: "BAD_REQUEST" } });
    expect(await callTool("read_file", { file_path: "{bundle-root}/config.yaml" })).toMatchObject({ success: true });
  });

  it("does not execute a retried call_id twice, in flight or after completion", async () => {
    await start();
    let writes = 0;
    hooks.beforeRename = () => {
      writes++;
    };
    const args = { file_path: "{session-folder}/once.md", content: "once" };
    const [first, second] = await Promise.all([callTool("save_output", args, "call-1"), callTool("save_output", args, "call-1")]);
    const third = await callTool("save_output", args, "call-1");
    expect(first).toEqual({ success: true, path: "{session-folder}/once.md", size: 4 });
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    // the hook sees the file writes only (the manifest is written without hooks)
    expect(writes).toBe(1);
    expect(await callTool("save_output", { ...args, content: "other" }, "call-1")).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
  });

  it("sheds load with BUSY above TOOL_CONCURRENCY (docs/security.md case 67)", async () => {
    await start({ TOOL_CONCURRENCY: "1" });
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    hooks.beforeOpen = () => blocked;
    const slow = callTool("read_file", { file_path: "{bundle-root}/config.yaml" });
    await new Promise((resolve) => setTimeout(resolve, 100));
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
    hooks.beforeOpen = () => blocked;
    const calls = [1, 2, 3].map(() => callTool("read_file", { file_path: "{bundle-root}/config.yaml" }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopping = runner?.stop();
    runner = undefined;
    release();
    await stopping;
    for (const reply of await Promise.all(calls)) expect(reply).toMatchObject({ success: true });
    await expect(callTool("read_file", { file_path: "{bundle-root}/config.yaml" })).rejects.toThrow(/503|no responders/i);
  });

  it("serves a session's files to their owner only", async () => {
    await start();
    await send(subjects.sessionManifestUpdate, { session_id: "s1", agent: "coach", bundle: "studio", owner: "alice", status: "running" });
    await callTool("save_output", { file_path: "{session-folder}/notes/a.md", content: "A" });
    const list = await send(subjects.sessionFilesList, { session_id: "s1", owner: "alice" });
    expect(list).toMatchObject({ success: true, files: [{ path: "{session-folder}/notes/a.md", size: 1 }] });
    expect(await send(subjects.sessionFilesRead, { session_id: "s1", owner: "alice", path: "notes/a.md" })).toEqual({
      success: true,
      path: "{session-folder}/notes/a.md",
      content: "A",
      size: 1,
      truncated: false,
    });
    expect(await send(subjects.sessionFilesList, { session_id: "s1", owner: "mallory" })).toMatchObject({ error: { code: "SESSION_NOT_FOUND" } });
    expect(await send(subjects.sessionFilesRead, { session_id: "s1", owner: "alice", path: "../s2/x.md" })).toMatchObject({
      error: { code: "PATH_OUTSIDE_ROOT" },
    });
    expect(await send(subjects.sessionFilesRead, { session_id: "s1", owner: "alice", path: "{bundle-root}/config.yaml" })).toMatchObject({
      error: { code: "INVALID_PATH" },
    });
    expect(await send(subjects.sessionFilesList, { session_id: "nobody", owner: "alice" })).toMatchObject({ error: { code: "SESSION_NOT_FOUND" } });
  });
});
