import { randomUUID } from "node:crypto";
import { connect, type Msg, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeJson, subjects, type ToolResult } from "@agent-orchestrator/shared";
import { ToolClient } from "./tool-client.js";

let connection: NatsConnection;
const context = { session_id: "s1", bundle_path: "bmad/custom/bundles/b" };
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
function fakeRunner(answer: (attempt: number) => ToolResult | undefined) {
  const prefix = `tc${randomUUID().slice(0, 8)}.`;
  const callIds: string[] = [];
  connection.subscribe(prefix + subjects.tool("read_file"), {
    callback: (_error, message: Msg) => {
      callIds.push((message.json() as { call_id: string }).call_id);
      const result = answer(callIds.length);
      if (result) message.respond(encodeJson(result));
    },
  });
  return { prefix, callIds };
}

const read = (client: ToolClient, signal?: AbortSignal) => client.call("read_file", "run1:call_1", context, { file_path: "{bundle-root}/a.md" }, signal);
const fileResult: ToolResult = { success: true, path: "{bundle-root}/a.md", content: "hello", size: 5, truncated: false };

describe("ToolClient retries", () => {
  it("sends an unanswered call again with the same call id and returns the answer", async () => {
    const runner = fakeRunner((attempt) => (attempt === 1 ? undefined : fileResult));
    const result = await read(new ToolClient(connection, timeoutMs, runner.prefix));
    expect(result).toEqual(fileResult);
    expect(runner.callIds).toEqual(["run1:call_1", "run1:call_1"]);
  });

  it("gives up after the last retry with SERVICE_TIMEOUT naming the attempts", async () => {
    const runner = fakeRunner(() => undefined);
    const result = await read(new ToolClient(connection, timeoutMs, runner.prefix, { retries: 2 }));
    expect(result).toEqual({ success: false, error: { code: "SERVICE_TIMEOUT", message: `The tool did not answer within ${timeoutMs} ms (3 attempts).` } });
    expect(runner.callIds).toHaveLength(3);
  });

  it("never retries a tool's own error result", async () => {
    const denied: ToolResult = { success: false, error: { code: "PATH_OUTSIDE_ROOT", message: "Access denied" } };
    const runner = fakeRunner(() => denied);
    expect(await read(new ToolClient(connection, timeoutMs, runner.prefix))).toEqual(denied);
    expect(runner.callIds).toHaveLength(1);
  });

  it("answers SERVICE_UNAVAILABLE at once when no tool-runner runs (docs/security.md case 68), without retrying", async () => {
    // a timeout would be SERVICE_TIMEOUT after 5 s and retries; no responders is its own answer
    const result = await read(new ToolClient(connection, 5_000, `none${randomUUID().slice(0, 8)}.`));
    expect(result).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE" } });
  });

  it("stops retrying when the turn is aborted, rejecting with the abort's reason", async () => {
    const runner = fakeRunner(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled by the user")), timeoutMs * 1.5);
    await expect(read(new ToolClient(connection, timeoutMs, runner.prefix, { retries: 5 }), controller.signal)).rejects.toThrow("cancelled by the user");
    expect(runner.callIds).toHaveLength(2);
  });

  it("answers CONTENT_TOO_LARGE, without sending, when the arguments cannot fit the server's max_payload", async () => {
    const runner = fakeRunner(() => fileResult);
    const content = "x".repeat(connection.info?.max_payload ?? 0);
    const result = await new ToolClient(connection, timeoutMs, runner.prefix).call("read_file", "run1:big", context, { file_path: "a.md", content });
    expect(result).toMatchObject({ success: false, error: { code: "CONTENT_TOO_LARGE" } });
    expect(runner.callIds).toHaveLength(0);
  });
});
