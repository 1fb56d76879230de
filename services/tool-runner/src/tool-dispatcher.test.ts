import { randomUUID } from "node:crypto";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type ToolResult } from "@agent-orchestrator/shared/wire";
import type { KV } from "nats";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox } from "./sandbox/index.js";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "./testing/sandbox-fixture.js";
import { ToolDispatcher } from "./tool-dispatcher.js";
import type { ToolDependencies } from "./tools/index.js";

const logger = createLogger("tool-runner-test", "silent");
const session = { kind: "session" as const, id: "s1" };

let fixture: SandboxFixture;
let records: KV;
let recordsStream: string;
/** Two tool-runner replicas: each its own sandbox, file store client and cache, over one NATS (the file store and the call records). */
let replicas: [ToolDispatcher, ToolDispatcher];

beforeEach(async () => {
  fixture = await createSandboxFixture();
  const lead = `tc${randomUUID().slice(0, 8)}`;
  recordsStream = `KV_${lead}_tool_calls`;
  records = await fixture.store.connection.jetstream().views.kv(`${lead}_tool_calls`, { history: 1 });
  const second = await createSandbox({ projectRoot: fixture.project, files: await fixture.store.replica(), ...fixtureLimits });
  const deps = (sandbox: ToolDependencies["sandbox"]): ToolDependencies => ({ sandbox, replyBudget: () => 1024 * 1024 - 4096, logger });
  replicas = [
    new ToolDispatcher({ deps: deps(fixture.sandbox), records, concurrency: 8, logger }),
    new ToolDispatcher({ deps: deps(second), records, concurrency: 8, logger }),
  ];
});
afterEach(async () => {
  const manager = await fixture.store.connection.jetstreamManager();
  await manager.streams.delete(recordsStream).catch(() => undefined);
  await fixture.cleanup();
});

const call = (replica: ToolDispatcher, tool: "save_output" | "edit_file" | "read_file" | "list_files", callId: string, args: unknown): Promise<ToolResult> =>
  replica.call(tool, { call_id: callId, context: fixture.toolContext, arguments: args });

async function recordCount(): Promise<number> {
  let count = 0;
  for await (const _key of await records.keys()) count += 1;
  return count;
}

describe("ToolDispatcher idempotency across replicas", () => {
  it("answers a save_output retried on another replica from the record, without writing again", async () => {
    const first = await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/brief.md", content: "v1" });
    expect(first).toEqual({ success: true, path: "{session-folder}/brief.md", size: 2, revision: 1 });
    await call(replicas[0], "save_output", "run1:1:call_t", { file_path: "{session-folder}/brief.md", content: "v2" });
    expect(await call(replicas[1], "save_output", "run1:1:call_s", { file_path: "{session-folder}/brief.md", content: "v1" })).toEqual(first);
    expect((await fixture.sandbox.read(fixture.context, "{session-folder}/brief.md")).content).toBe("v2");
    expect((await fixture.files.revisions(session, "brief.md")).map((revision) => revision.author.tool_call_id)).toEqual(["run1:1:call_t", "run1:1:call_s"]);
  });

  it("applies an append and an edit retried on another replica once (docs/security.md case 158)", async () => {
    await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/log.md", content: "status: open\n" });
    const append = { file_path: "{session-folder}/log.md", content: "one\n", mode: "append" };
    const appended = await call(replicas[0], "save_output", "run1:1:call_a", append);
    expect(await call(replicas[1], "save_output", "run1:1:call_a", append)).toEqual(appended);
    const edit = { file_path: "{session-folder}/log.md", old_string: "open", new_string: "open, reopened" };
    const edited = await call(replicas[0], "edit_file", "run1:1:call_e", edit);
    expect(edited).toMatchObject({ success: true, revision: 3 });
    expect(await call(replicas[1], "edit_file", "run1:1:call_e", edit)).toEqual(edited);
    expect((await fixture.sandbox.read(fixture.context, "{session-folder}/log.md")).content).toBe("status: open, reopened\none\n");
  });

  it("refuses a call id reused for a different call on another replica with BAD_REQUEST", async () => {
    await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/a.md", content: "a" });
    const reused = await call(replicas[1], "save_output", "run1:1:call_s", { file_path: "{session-folder}/b.md", content: "b" });
    expect(reused).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await fixture.files.stat(session, "b.md")).toBeUndefined();
  });

  it("records only the outcomes a retry must get again: a refused path changed nothing, and its retry runs", async () => {
    const refused = await call(replicas[0], "save_output", "run1:1:call_p", { file_path: "{session-folder}/.env", content: "K=1" });
    expect(refused).toMatchObject({ success: false, error: { code: "PROTECTED_PATH" } });
    expect(await recordCount()).toBe(0);
    await call(replicas[0], "read_file", "run1:1:call_r", { file_path: "{bundle-root}/config.yaml" });
    expect(await recordCount()).toBe(0);
    await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/a.md", content: "a" });
    expect(await recordCount()).toBe(1);
  });

  it("keeps the records out of the model's reach: not in the chat's files, not readable, not writable", async () => {
    await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/a.md", content: "a" });
    const listing = await call(replicas[1], "list_files", "run1:1:call_l", { path: "{session-folder}" });
    expect(listing).toMatchObject({ success: true, entries: [{ name: "a.md", type: "file", size: 1 }] });
    expect(JSON.stringify(listing)).not.toContain(".tool-calls");
    expect(await call(replicas[1], "read_file", "run1:1:call_r", { file_path: "{session-folder}/.tool-calls/x.json" })).toMatchObject({
      success: false,
      error: { code: "PROTECTED_PATH" },
    });
    expect(await call(replicas[1], "save_output", "run1:1:call_w", { file_path: "{session-folder}/.tool-calls/x.json", content: "{}" })).toMatchObject({
      success: false,
      error: { code: "PROTECTED_PATH" },
    });
    // the chat's space holds the model's file only
    expect([...(await fixture.files.index(session)).files.keys()]).toEqual(["a.md"]);
  });
});
