import { randomUUID } from "node:crypto";
import { connect, type Msg, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { subjects, type ToolResult } from "@agent-orchestrator/shared/wire";
import { ToolClient } from "./tool-client.js";

let connection: NatsConnection;
const context = { session_id: "s1", bundle_path: "bmad/custom/bundles/b", project_id: "p1", user: "ada", agent_id: "tester" };
const timeoutMs = 150;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});

afterAll(async () => {
  await connection.drain();
});

/**
 * A stand-in tool-runner on its own prefix: `answer` decides, per request, whether to reply (a result) or
 * stay silent like a replica that died mid-call (undefined). Every request's call id is recorded.
 */
function fakeRunner(answer: (attempt: number, callId: string) => ToolResult | undefined) {
  const prefix = `tc${randomUUID().slice(0, 8)}.`;
  const callIds: string[] = [];
  connection.subscribe(prefix + subjects.tool("read_file"), {
    callback: (_error, message: Msg) => {
      const callId = (message.json() as { call_id: string }).call_id;
      callIds.push(callId);
      const result = answer(callIds.length, callId);
      if (result) message.respond(encodeJson(result));
    },
  });
  return { prefix, callIds };
}

const read = (client: ToolClient, signal?: AbortSignal) => client.call("read_file", "run1:call_1", context, { file_path: "{bundle-root}/a.md" }, signal);
const fileResult: ToolResult = { success: true, path: "{bundle-root}/a.md", content: "hello", size: 5, truncated: false };

describe("ToolClient retries", () => {
  it("never sends a timed-out call again: the model waits one TOOL_TIMEOUT_MS and hears it may have run (docs/security.md case 145)", async () => {
    // a call still running when the timeout fires, answered too late: a repeat would wait as long again, and might run it twice
    const runner = fakeRunner((_attempt, callId) => (callId === "run1:barrier" ? fileResult : undefined));
    const client = new ToolClient(connection, timeoutMs, runner.prefix);
    const result = await read(client);
    expect(result).toEqual({
      success: false,
      error: { code: "SERVICE_TIMEOUT", message: expect.stringContaining(`within ${timeoutMs} ms and was not sent again`) },
      may_have_run: true,
    });
    expect((result as { error: { message: string } }).error.message).toContain("Check what it did");
    // a later call on the same subject is answered: a repeat sent before it would have reached the runner first
    expect(await client.call("read_file", "run1:barrier", context, { file_path: "{bundle-root}/a.md" })).toEqual(fileResult);
    expect(runner.callIds).toEqual(["run1:call_1", "run1:barrier"]);
  });

  it("sends a call again while no tool-runner subscribes, and once when one does (docs/security.md case 145)", async () => {
    // "no responders": nothing was delivered, so a repeat runs nothing twice (a tool-runner restarting, a leader change)
    const prefix = `late${randomUUID().slice(0, 8)}.`;
    const callIds: string[] = [];
    setTimeout(() => {
      connection.subscribe(prefix + subjects.tool("read_file"), {
        callback: (_error, message: Msg) => {
          callIds.push((message.json() as { call_id: string }).call_id);
          message.respond(encodeJson(fileResult));
        },
      });
    }, 300);
    const result = await read(new ToolClient(connection, 5_000, prefix, { unavailableForMs: 5_000, pauseMs: 50 }));
    expect(result).toEqual(fileResult);
    expect(callIds).toEqual(["run1:call_1"]);
  });

  it("never retries a tool's own error result", async () => {
    const denied: ToolResult = { success: false, error: { code: "PATH_OUTSIDE_ROOT", message: "Access denied" } };
    const runner = fakeRunner(() => denied);
    expect(await read(new ToolClient(connection, timeoutMs, runner.prefix))).toEqual(denied);
    expect(runner.callIds).toHaveLength(1);
  });

  it("answers SERVICE_UNAVAILABLE, not a timeout, when no tool-runner runs (docs/security.md case 68), saying the call did not run", async () => {
    // a timeout would be SERVICE_TIMEOUT after 5 s; no responders is its own answer, retried only for the short budget
    const result = await read(new ToolClient(connection, 5_000, `none${randomUUID().slice(0, 8)}.`, { unavailableForMs: 200, pauseMs: 50 }));
    expect(result).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("did not run") }, may_have_run: false });
  });

  it("stops waiting when the turn is aborted, rejecting with the abort's reason, without sending again", async () => {
    const runner = fakeRunner(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled by the user")), timeoutMs / 2);
    await expect(read(new ToolClient(connection, timeoutMs, runner.prefix), controller.signal)).rejects.toThrow("cancelled by the user");
    expect(runner.callIds).toHaveLength(1);
  });

  it("stops retrying an absent tool-runner when the turn is aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("turn deadline")), 100);
    const client = new ToolClient(connection, 5_000, `none${randomUUID().slice(0, 8)}.`, { unavailableForMs: 60_000, pauseMs: 20 });
    await expect(read(client, controller.signal)).rejects.toThrow("turn deadline");
  });

  it("answers CONTENT_TOO_LARGE, without sending, when the arguments cannot fit the server's max_payload", async () => {
    const runner = fakeRunner(() => fileResult);
    const content = "x".repeat(connection.info?.max_payload ?? 0);
    const result = await new ToolClient(connection, timeoutMs, runner.prefix).call("read_file", "run1:big", context, { file_path: "a.md", content });
    expect(result).toMatchObject({ success: false, error: { code: "CONTENT_TOO_LARGE" } });
    expect(runner.callIds).toHaveLength(0);
  });
});
