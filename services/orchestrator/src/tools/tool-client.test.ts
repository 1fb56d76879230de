import { randomUUID } from "node:crypto";
import { connect, type Msg, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { subjects, type ToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import { ToolClient } from "./tool-client.js";

let connection: NatsConnection;
const context = { session_id: "s1", bundle_path: "bmad/custom/bundles/b", project_id: "p1", user: "ada", agent_id: "tester" };
const timeoutMs = 150;
/** Every call waits `ms`: a command's and a script's own limits left out of it. */
const waitsOf = (ms: number) => ({ toolTimeoutMs: ms, commandTimeoutMaxMs: 0, scriptTimeoutMs: 0 });

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
function fakeRunner(answer: (attempt: number, callId: string) => ToolResult | undefined, tool: ToolName = "read_file", delayMs = 0) {
  const prefix = `tc${randomUUID().slice(0, 8)}.`;
  const callIds: string[] = [];
  connection.subscribe(prefix + subjects.tool(tool), {
    callback: (_error, message: Msg) => {
      const callId = (message.json() as { call_id: string }).call_id;
      callIds.push(callId);
      const result = answer(callIds.length, callId);
      if (result) setTimeout(() => message.respond(encodeJson(result)), delayMs);
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
    const client = new ToolClient(connection, waitsOf(timeoutMs), runner.prefix);
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
    const result = await read(new ToolClient(connection, waitsOf(5_000), prefix, { unavailableForMs: 5_000, pauseMs: 50 }));
    expect(result).toEqual(fileResult);
    expect(callIds).toEqual(["run1:call_1"]);
  });

  it("never retries a tool's own error result", async () => {
    const denied: ToolResult = { success: false, error: { code: "PATH_OUTSIDE_ROOT", message: "Access denied" } };
    const runner = fakeRunner(() => denied);
    expect(await read(new ToolClient(connection, waitsOf(timeoutMs), runner.prefix))).toEqual(denied);
    expect(runner.callIds).toHaveLength(1);
  });

  it("answers SERVICE_UNAVAILABLE, not a timeout, when no tool-runner runs (docs/security.md case 68), saying the call did not run", async () => {
    // a timeout would be SERVICE_TIMEOUT after 5 s; no responders is its own answer, retried only for the short budget
    const result = await read(new ToolClient(connection, waitsOf(5_000), `none${randomUUID().slice(0, 8)}.`, { unavailableForMs: 200, pauseMs: 50 }));
    expect(result).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("did not run") }, may_have_run: false });
  });

  it("stops waiting when the turn is aborted, rejecting with the abort's reason, without sending again", async () => {
    const runner = fakeRunner(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled by the user")), timeoutMs / 2);
    await expect(read(new ToolClient(connection, waitsOf(timeoutMs), runner.prefix), controller.signal)).rejects.toThrow("cancelled by the user");
    expect(runner.callIds).toHaveLength(1);
  });

  it("stops retrying an absent tool-runner when the turn is aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("turn deadline")), 100);
    const client = new ToolClient(connection, waitsOf(5_000), `none${randomUUID().slice(0, 8)}.`, { unavailableForMs: 60_000, pauseMs: 20 });
    await expect(read(client, controller.signal)).rejects.toThrow("turn deadline");
  });

  it("answers CONTENT_TOO_LARGE, without sending, when the arguments cannot fit the server's max_payload", async () => {
    const runner = fakeRunner(() => fileResult);
    const content = "x".repeat(connection.info?.max_payload ?? 0);
    const result = await new ToolClient(connection, waitsOf(timeoutMs), runner.prefix).call("read_file", "run1:big", context, { file_path: "a.md", content });
    expect(result).toMatchObject({ success: false, error: { code: "CONTENT_TOO_LARGE" } });
    expect(runner.callIds).toHaveLength(0);
  });
});

describe("ToolClient waits", () => {
  const commandResult: ToolResult = { success: true, exit_code: 0, stdout: "ok\n", stderr: "", truncated: false, duration_ms: 600 };
  const waits = { toolTimeoutMs: timeoutMs, commandTimeoutMaxMs: 2_000, scriptTimeoutMs: 700 };

  it("waits for a command its own timeout_ms plus TOOL_TIMEOUT_MS, so a command longer than TOOL_TIMEOUT_MS is answered", async () => {
    const runner = fakeRunner(() => commandResult, "run_command", 600);
    const result = await new ToolClient(connection, waits, runner.prefix).call("run_command", "run1:test", context, { command: "npm test", timeout_ms: 1_000 });
    expect(result).toEqual(commandResult);
  });

  it("waits for a script SCRIPT_TIMEOUT_MS plus TOOL_TIMEOUT_MS", async () => {
    const runner = fakeRunner(() => commandResult, "run_script", 600);
    expect(await new ToolClient(connection, waits, runner.prefix).call("run_script", "run1:script", context, { command: "python3 x.py" })).toEqual(commandResult);
  });

  it("cuts a command's timeout_ms to COMMAND_TIMEOUT_MAX_MS, and waits the maximum for a command that names none", async () => {
    const runner = fakeRunner(() => undefined, "run_command");
    const client = new ToolClient(connection, { ...waits, commandTimeoutMaxMs: 300 }, runner.prefix);
    for (const args of [{ command: "sleep 99", timeout_ms: 86_400_000 }, { command: "sleep 99" }]) {
      const result = await client.call("run_command", "run1:sleep", context, args);
      expect(result).toMatchObject({ success: false, error: { code: "SERVICE_TIMEOUT", message: expect.stringContaining(`within ${300 + timeoutMs} ms`) }, may_have_run: true });
    }
    const asked = await client.call("run_command", "run1:short", context, { command: "sleep 99", timeout_ms: 100 });
    expect(asked).toMatchObject({ error: { message: expect.stringContaining(`within ${100 + timeoutMs} ms`) } });
  });

  it("waits TOOL_TIMEOUT_MS for any other tool, whatever its arguments say", async () => {
    const runner = fakeRunner(() => undefined);
    const result = await new ToolClient(connection, waits, runner.prefix).call("read_file", "run1:read", context, { file_path: "a.md", timeout_ms: 1_000 });
    expect(result).toMatchObject({ error: { code: "SERVICE_TIMEOUT", message: expect.stringContaining(`within ${timeoutMs} ms`) } });
  });
});
