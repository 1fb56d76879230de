/**
 * The loop's approval rules in memory (docs/approvals.md): the gate's allow, deny and ask, the turn stopping at a
 * call that waits, and a resumed turn going on from a member's decision.
 */
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { builtInApprovals, effectiveApprovals, type RunEventBody, type ToolName } from "@agent-orchestrator/shared/wire";
import { runAgentLoop, type TurnInput } from "./agent-loop.js";
import type { ToolCaller } from "./tool-caller.js";
import type { CallDecision, ToolGate } from "./tool-gate.js";
import { InMemoryModel, type InMemoryAnswer } from "../testing/in-memory-model.js";

/** save_output asks, edit_file is denied, the rest run. */
const gate: ToolGate = { approvals: effectiveApprovals(builtInApprovals, { tools: { save_output: "ask", edit_file: "deny" } }) };

function fixture(model: InMemoryModel, extra: Partial<TurnInput> = {}) {
  const events: RunEventBody[] = [];
  const ran: { name: ToolName; callId: string; args: unknown }[] = [];
  const tools: ToolCaller = {
    async call(name, callId, _context, args) {
      ran.push({ name, callId, args });
      return { success: true, path: "docs/x.md" };
    },
  };
  const input: TurnInput = {
    model,
    messages: [
      { role: "system", content: "You are a test agent." },
      { role: "user", content: "go" },
    ],
    tools,
    toolNames: ["read_file", "save_output", "edit_file"],
    context: { session_id: "s1", bundle_path: "b", project_id: "p1", user: "ada", agent_id: "tester" },
    runId: "run1:1",
    emit: (event) => events.push(event),
    signal: new AbortController().signal,
    limits: { maxIterations: 10, toolConcurrency: 4, maxToolCallsPerAnswer: 16, toolResultMaxChars: 65_536, maxInvalidToolCalls: 3, answerMaxBytes: 1 << 20, turnOutputMaxBytes: 1 << 22 },
    gate,
    ...extra,
  };
  return { run: () => runAgentLoop(input), events, ran };
}

const threeCalls: InMemoryAnswer = {
  toolCalls: [
    { id: "c1", name: "read_file", arguments: { file_path: "a.md" } },
    { id: "c2", name: "save_output", arguments: { file_path: "docs/x.md", content: "draft" } },
    { id: "c3", name: "read_file", arguments: { file_path: "b.md" } },
  ],
};

describe("the loop's gate", () => {
  it("denies a call with a tool error naming why, and the turn goes on", async () => {
    const model = new InMemoryModel([{ toolCalls: [{ id: "c1", name: "edit_file", arguments: { file_path: "a.md", old_string: "a", new_string: "b" } }] }, { text: "I could not edit it." }]);
    const { run, ran } = fixture(model);
    expect((await run()).response).toBe("I could not edit it.");
    expect(ran).toEqual([]);
    const [shown] = model.lastToolMessages();
    expect(JSON.parse(shown?.content ?? "{}")).toMatchObject({ success: false, error: { code: "TOOL_CALL_DENIED", message: expect.stringContaining("edit_file is set to deny") } });
  });

  it("stops the turn at the first call that asks: the calls before it run, it and the calls after it wait", async () => {
    const model = new InMemoryModel([{ text: "Reading, then saving.", ...threeCalls }, { text: "never asked" }]);
    const { run, ran, events } = fixture(model);
    const output = await run();
    expect(output.paused).toEqual({ id: "c2", name: "save_output", args: { file_path: "docs/x.md", content: "draft" }, reason: "save_output is set to ask in this project" });
    expect(output.response).toBe("Reading, then saving.");
    expect(ran.map((call) => call.callId)).toEqual(["run1:1:c1"]);
    // the answer with its three calls is kept, and the one result the turn has
    expect(output.added.map((message) => message.role)).toEqual(["assistant", "tool"]);
    expect(events.filter((event) => event.type === "tool_call").map((event) => event.type === "tool_call" && event.call_id)).toEqual(["c1"]);
    // the model is not called again until the call is decided
    expect(model.requests).toHaveLength(1);
  });
});

describe("a resumed turn", () => {
  /** The conversation as the paused turn left it, and what it still has to answer. */
  const stopped = (decision: Omit<CallDecision, "callId" | "callKey">) => ({
    messages: [
      { role: "system", content: "You are a test agent." },
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read_file", arguments: '{"file_path":"a.md"}' } },
          { id: "c2", type: "function", function: { name: "save_output", arguments: '{"file_path":"docs/x.md","content":"draft"}' } },
          { id: "c3", type: "function", function: { name: "read_file", arguments: '{"file_path":"b.md"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: '{"success":true}' },
    ] as ChatCompletionMessageParam[],
    resume: {
      calls: [
        { id: "c2", name: "save_output", arguments: '{"file_path":"docs/x.md","content":"draft"}' },
        { id: "c3", name: "read_file", arguments: '{"file_path":"b.md"}' },
      ],
      decision: { callId: "c2", callKey: "approval-1:c2", ...decision },
    },
  });

  it("case 96: runs exactly the member's edited call once, under a key every delivery shares, tells the model, then goes on", async () => {
    const model = new InMemoryModel([{ text: "Saved." }]);
    const edited = { file_path: "docs/y.md", content: "final" };
    const { run, ran, events } = fixture(model, { ...stopped({ outcome: "approve", by: "olive", arguments: edited, message: "Use y.md" }), runId: "approval-1:2" });
    const output = await run();
    expect(output.response).toBe("Saved.");
    expect(ran).toEqual([
      { name: "save_output", callId: "approval-1:c2", args: edited },
      { name: "read_file", callId: "approval-1:2:c3", args: { file_path: "b.md" } },
    ]);
    expect(events.find((event) => event.type === "tool_call" && event.call_id === "c2")).toMatchObject({ arguments: edited });
    const shown = Object.fromEntries(model.lastToolMessages().map((message) => [message.tool_call_id, JSON.parse(message.content) as Record<string, unknown>]));
    expect(shown["c2"]).toMatchObject({ success: true, approval: expect.stringContaining("olive changed this call's arguments"), arguments_run: edited, approval_message: "Use y.md" });
    expect(output.added.map((message) => message.role)).toEqual(["tool", "tool", "assistant"]);
  });

  it("answers a rejected call with a tool error carrying the member's words, and runs nothing of it", async () => {
    const model = new InMemoryModel([{ text: "Understood." }]);
    const { run, ran } = fixture(model, stopped({ outcome: "reject", by: "olive", message: "Not into docs/" }));
    await run();
    expect(ran.map((call) => call.name)).toEqual(["read_file"]);
    const rejected = model.lastToolMessages().find((message) => message.tool_call_id === "c2");
    expect(JSON.parse(rejected?.content ?? "{}")).toMatchObject({ success: false, error: { code: "TOOL_CALL_REJECTED", message: "olive rejected this call, so it was not run: Not into docs/" } });
  });

  it("ends with APPROVAL_EXPIRED, answering every waiting call as not run, when nobody decided", async () => {
    const model = new InMemoryModel([]);
    const { run, ran } = fixture(model, stopped({ outcome: "expire", expiredAt: "2026-01-02T00:00:00.000Z" }));
    const added: ChatCompletionMessageParam[] = [];
    await expect(fixture(model, { ...stopped({ outcome: "expire" }), added }).run()).rejects.toMatchObject({ code: "APPROVAL_EXPIRED" });
    expect(added.map((message) => message.role === "tool" && message.tool_call_id)).toEqual(["c2", "c3"]);
    await expect(run()).rejects.toThrow(/expired at 2026-01-02/);
    expect(ran).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it("stops again at a later call that asks", async () => {
    const model = new InMemoryModel([]);
    const later = stopped({ outcome: "approve", by: "olive" });
    later.resume.calls.push({ id: "c4", name: "save_output", arguments: '{"file_path":"docs/z.md","content":"z"}' });
    const { run, ran } = fixture(model, later);
    const output = await run();
    expect(ran.map((call) => call.callId)).toEqual(["approval-1:c2", "run1:1:c3"]);
    expect(output.paused).toMatchObject({ id: "c4", name: "save_output" });
  });
});
