/**
 * Every rule of the agentic loop, in memory: a scripted model behind the model seam and plain functions
 * behind the tool seam (docs/design.md "The agentic loop"). What only NATS or the HTTP model server can show
 * (retries, timeouts, the wire format, sessions) stays in orchestrator-service and orchestrator-resilience.
 */
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type CompactionMarker, type RunEventBody, type ToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import { runAgentLoop, type SubagentCaller, type TurnInput } from "./agent-loop.js";
import type { ContextGuard } from "./context-guard.js";
import type { LoopLimits } from "./loop-limits.js";
import type { ModelCaller, ModelStreamPart } from "./model-caller.js";
import type { ToolCaller } from "./tool-caller.js";
import { InMemoryModel, type InMemoryAnswer } from "../testing/in-memory-model.js";

const limits: LoopLimits = {
  maxIterations: 10,
  toolConcurrency: 4,
  maxToolCallsPerAnswer: 16,
  toolResultMaxChars: 65_536,
  maxInvalidToolCalls: 3,
  answerMaxBytes: 1024 * 1024,
  turnOutputMaxBytes: 4 * 1024 * 1024,
};

interface RecordedCall {
  name: ToolName;
  callId: string;
  args: unknown;
}

/** Tools that answer from a function and record each call. */
function fakeTools(answer: (call: RecordedCall) => ToolResult | Promise<ToolResult> = () => ({ success: true, content: "ok" })) {
  const calls: RecordedCall[] = [];
  const tools: ToolCaller = {
    async call(name, callId, _context, args) {
      const call = { name, callId, args };
      calls.push(call);
      return answer(call);
    },
  };
  return { tools, calls };
}

function loop(model: InMemoryModel, overrides: Omit<Partial<TurnInput>, "limits"> & { limits?: Partial<LoopLimits> } = {}) {
  const events: RunEventBody[] = [];
  const { limits: limitOverrides, ...rest } = overrides;
  const input: TurnInput = {
    model,
    messages: [
      { role: "system", content: "You are a test agent." },
      { role: "user", content: "go" },
    ],
    tools: fakeTools().tools,
    toolNames: ["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files"],
    context: { session_id: "s1", bundle_path: "bmad/custom/bundles/tests", project_id: "p1", user: "ada", agent_id: "tester" },
    runId: "run1:1",
    emit: (event) => events.push(event),
    signal: new AbortController().signal,
    limits: { ...limits, ...limitOverrides },
    ...rest,
  };
  return { run: () => runAgentLoop(input), events };
}

const readConfig: InMemoryAnswer = { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] };
const toolResults = (events: RunEventBody[]) => events.flatMap((event) => (event.type === "tool_result" ? [event] : []));

describe("runAgentLoop: answers", () => {
  it("returns the answer of a model that calls no tool, streaming its text as deltas", async () => {
    const model = new InMemoryModel([{ text: "Hello there", usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }]);
    const { run, events } = loop(model);
    const output = await run();
    expect(output).toMatchObject({ response: "Hello there", iterations: 1, usage: { total_tokens: 10 }, added: [{ role: "assistant", content: "Hello there" }] });
    expect(events.filter((event) => event.type === "delta").map((event) => event.type === "delta" && event.text).join("")).toBe("Hello there");
  });

  it("runs a tool call, shows the model its result, and sums the usage of every call", async () => {
    const model = new InMemoryModel([readConfig, { text: "read it" }]);
    const { tools, calls } = fakeTools(() => ({ success: true, path: "{bundle-root}/config.yaml", content: "user_name: Ada" }));
    const { run, events } = loop(model, { tools });
    const output = await run();
    expect(output).toMatchObject({ response: "read it", iterations: 2, usage: { total_tokens: 24 }, usageByCall: [{ total_tokens: 12 }, { total_tokens: 12 }] });
    expect(calls).toEqual([{ name: "read_file", callId: "run1:1:call_1_0", args: { file_path: "{bundle-root}/config.yaml" } }]);
    expect(JSON.parse(model.lastToolMessages()[0]?.content ?? "")).toMatchObject({ content: "user_name: Ada" });
    expect(events.map((event) => event.type)).toEqual(["tool_call", "tool_result", "delta", "delta"]);
    expect(toolResults(events)[0]).toMatchObject({ success: true, path: "{bundle-root}/config.yaml" });
    expect(output.added.map((message) => message.role)).toEqual(["assistant", "tool", "assistant"]);
  });

  it("answers with the text of every model call, not only the last, one paragraph break between calls that said something", async () => {
    const model = new InMemoryModel([{ text: "Let me look.", ...readConfig }, readConfig, { text: "It says Ada." }]);
    expect(await loop(model).run()).toMatchObject({ response: "Let me look.\n\nIt says Ada.", iterations: 3 });
  });

  it("turns an empty answer into MODEL_UNAVAILABLE, and says when the content filter refused (docs/security.md case 53)", async () => {
    await expect(loop(new InMemoryModel([{ text: "  " }])).run()).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE", message: expect.stringContaining("empty") });
    await expect(loop(new InMemoryModel([{ finishReason: "content_filter" }])).run()).rejects.toMatchObject({
      code: "MODEL_UNAVAILABLE",
      message: expect.stringContaining("content filter"),
    });
  });

  it("never runs tool calls cut off by the length limit (docs/security.md case 53)", async () => {
    const { tools, calls } = fakeTools();
    const model = new InMemoryModel([{ toolCalls: [{ name: "read_file", arguments: '{"file_path": "{bundle-ro' }], finishReason: "length" }]);
    await expect(loop(model, { tools }).run()).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE", message: expect.stringContaining("length") });
    expect(calls).toEqual([]);
  });
});

describe("runAgentLoop: limits", () => {
  it("stops a model that never stops calling tools after maxIterations model calls (docs/security.md case 46)", async () => {
    const model = new InMemoryModel(() => readConfig);
    await expect(loop(model, { limits: { maxIterations: 3 } }).run()).rejects.toMatchObject({ code: "MAX_ITERATIONS" });
    expect(model.requests).toHaveLength(3);
  });

  it("answers the calls past the per-answer cap with an error, and runs at most toolConcurrency at once (docs/security.md case 45)", async () => {
    let running = 0;
    let mostAtOnce = 0;
    const { tools, calls } = fakeTools(async () => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      // let the other calls of the answer start before this one ends
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return { success: true, content: "ok" };
    });
    const many = Array.from({ length: 10 }, (_unused, index) => ({ name: "read_file", arguments: { file_path: `{bundle-root}/f${index}.md` } }));
    const model = new InMemoryModel([{ toolCalls: many }, { text: "done" }]);
    const { run, events } = loop(model, { tools, limits: { maxToolCallsPerAnswer: 6, toolConcurrency: 2 } });
    expect(await run()).toMatchObject({ response: "done" });
    expect(calls).toHaveLength(6);
    expect(mostAtOnce).toBe(2);
    expect(toolResults(events).filter((event) => event.error_code === "INVALID_TOOL_CALL")).toHaveLength(4);
    // every call gets its result, in the model's order
    expect(model.lastToolMessages().map((message) => message.tool_call_id)).toEqual(many.map((_call, index) => `call_1_${index}`));
    expect(model.lastToolMessages()[9]?.content).toContain("Too many tool calls");
  });

  it("ends the turn after maxInvalidToolCalls invalid calls in a row; a valid call resets the count (docs/security.md case 39)", async () => {
    const invalid: InMemoryAnswer = { toolCalls: [{ name: "read_file", arguments: "{not json" }] };
    const model = new InMemoryModel([invalid, invalid, readConfig, invalid, invalid, invalid]);
    await expect(loop(model, { limits: { maxInvalidToolCalls: 3 } }).run()).rejects.toMatchObject({ code: "INVALID_TOOL_CALL", message: expect.stringContaining("3 invalid") });
    expect(model.requests).toHaveLength(6);
  });

  it("cuts a huge tool result to its budget, head and tail, on a character boundary (docs/security.md case 56)", async () => {
    const { tools } = fakeTools(() => ({ success: true, content: "START" + "é".repeat(50_000) + "END" }));
    const model = new InMemoryModel([readConfig, { text: "ok" }]);
    await loop(model, { tools, limits: { toolResultMaxChars: 4_096 } }).run();
    const content = model.lastToolMessages()[0]?.content ?? "";
    expect(content.length).toBeLessThanOrEqual(4_096);
    expect(content).toContain("START");
    expect(content).toContain("END");
    expect(content).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
    expect(content).not.toContain("\uFFFD");
  });
});

describe("runAgentLoop: invalid calls become results the model reads", () => {
  it("answers invalid JSON with a tool error and goes on, without calling the tool (docs/security.md case 39)", async () => {
    const { tools, calls } = fakeTools();
    const model = new InMemoryModel([{ toolCalls: [{ name: "read_file", arguments: '{"file_path": "a.txt"' }] }, { text: "recovered" }]);
    const { run, events } = loop(model, { tools });
    expect(await run()).toMatchObject({ response: "recovered", iterations: 2 });
    expect(calls).toEqual([]);
    expect(toolResults(events)[0]).toMatchObject({ success: false, error_code: "INVALID_TOOL_CALL" });
    expect(model.lastToolMessages()[0]?.content).toContain("not valid JSON");
  });

  it("answers arguments that fail the schema with a short error naming the tool (docs/security.md case 40)", async () => {
    const { tools, calls } = fakeTools();
    const model = new InMemoryModel([{ toolCalls: [{ name: "read_file", arguments: { paths: "a", extra: 1 } }] }, { text: "fine" }]);
    expect(await loop(model, { tools }).run()).toMatchObject({ response: "fine" });
    expect(calls).toEqual([]);
    expect(model.lastToolMessages()[0]?.content).toContain("Invalid arguments for read_file");
  });

  it("treats unknown, prototype and not-offered tool names as UNKNOWN_TOOL, naming the available tools (docs/security.md cases 42, 43)", async () => {
    const { tools, calls } = fakeTools();
    const names = ["delete_everything", "constructor", "__proto__", "toString", "run_script"];
    const model = new InMemoryModel([{ toolCalls: names.map((name) => ({ name, arguments: {} })) }, { text: "ok" }]);
    const { run, events } = loop(model, { tools, limits: { maxInvalidToolCalls: 10 } });
    await run();
    expect(calls).toEqual([]);
    expect(toolResults(events).map((event) => event.error_code)).toEqual(names.map(() => "UNKNOWN_TOOL"));
    expect(model.lastToolMessages()[0]?.content).toContain("Available tools: read_file, save_output, edit_file, list_files, find_files, search_files");
  });

  it("case 44: runs both calls of an id used twice in one answer, the second under a fresh id the model then sees", async () => {
    const { tools, calls } = fakeTools();
    const model = new InMemoryModel([
      {
        toolCalls: [
          { id: "same", name: "read_file", arguments: { file_path: "{bundle-root}/a.md" } },
          { id: "same", name: "read_file", arguments: { file_path: "{bundle-root}/b.md" } },
        ],
      },
      { text: "ok" },
    ]);
    const { run, events } = loop(model, { tools });
    await run();
    expect(calls.map((call) => call.args)).toEqual([{ file_path: "{bundle-root}/a.md" }, { file_path: "{bundle-root}/b.md" }]);
    expect(calls.map((call) => call.callId)).toEqual(["run1:1:same", "run1:1:call_run1_1_1"]);
    expect(toolResults(events).map((event) => [event.call_id, event.success])).toEqual([
      ["same", true],
      ["call_run1_1_1", true],
    ]);
    expect(model.lastToolMessages().map((message) => message.tool_call_id)).toEqual(["same", "call_run1_1_1"]);
  });

  it("offers run_subagent only when there is a subagent caller, and routes its calls there", async () => {
    const withoutCaller = new InMemoryModel([{ text: "ok" }]);
    await loop(withoutCaller, { toolNames: ["read_file", "run_subagent"] }).run();
    expect(withoutCaller.requests[0]?.tools.map((tool) => tool.function.name)).toEqual(["read_file"]);

    const prompts: string[] = [];
    const subagents: SubagentCaller = {
      async call(_callId, args) {
        prompts.push(args.prompt);
        return { success: true, response: "child answer" };
      },
    };
    const { tools, calls } = fakeTools();
    const model = new InMemoryModel([{ toolCalls: [{ name: "run_subagent", arguments: { prompt: "review it" } }] }, { text: "ok" }]);
    await loop(model, { tools, toolNames: ["read_file", "run_subagent"], subagents }).run();
    expect(prompts).toEqual(["review it"]);
    expect(calls).toEqual([]);
  });
});

describe("runAgentLoop: failures and cancel", () => {
  it("gives UPSTREAM_INTERRUPTED when the stream breaks after text reached the client, MODEL_UNAVAILABLE before (docs/security.md case 50)", async () => {
    await expect(loop(new InMemoryModel([{ text: "half an answer", failAfterText: new Error("socket hang up") }])).run()).rejects.toMatchObject({
      code: "UPSTREAM_INTERRUPTED",
    });
    await expect(loop(new InMemoryModel([{ fail: new Error("connect ECONNREFUSED") }])).run()).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
  });

  it("keeps a classified model error as it is", async () => {
    const rateLimited = new AppError("MODEL_RATE_LIMITED", "slow down");
    await expect(loop(new InMemoryModel([{ fail: rateLimited }])).run()).rejects.toBe(rateLimited);
  });

  it("stops a waiting model call on cancel with the abort's reason (docs/security.md case 52)", async () => {
    const controller = new AbortController();
    const model = new InMemoryModel([{ hang: true }]);
    const turn = loop(model, { signal: controller.signal }).run();
    const reason = new AppError("CANCELLED", "The turn was cancelled by the user");
    controller.abort(reason);
    await expect(turn).rejects.toBe(reason);
  });

  it("passes the turn's signal to the tools, and ends with CANCELLED when a cancel comes during a tool call (docs/security.md case 52)", async () => {
    const controller = new AbortController();
    const tools: ToolCaller = {
      call: (_name, _callId, _context, _args, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
          controller.abort(new AppError("CANCELLED", "The turn was cancelled"));
        }),
    };
    const model = new InMemoryModel([readConfig, { text: "never" }]);
    await expect(loop(model, { tools, signal: controller.signal }).run()).rejects.toMatchObject({ code: "CANCELLED" });
    expect(model.requests).toHaveLength(1);
  });

  it("gives the model the turn's signal on every call", async () => {
    const controller = new AbortController();
    const model = new InMemoryModel([readConfig, { text: "ok" }]);
    await loop(model, { signal: controller.signal }).run();
    expect(model.requests.map((request) => request.signal)).toEqual([controller.signal, controller.signal]);
  });
});

/** Checks that every tool result the model was sent answers a call of the assistant message just before its run of results. */
function expectPairedIds(messages: readonly ChatCompletionMessageParam[]): void {
  let offered: string[] = [];
  for (const message of messages) {
    if (message.role === "assistant") offered = (message.tool_calls ?? []).map((call) => call.id);
    if (message.role === "tool") expect(offered).toContain(message.tool_call_id);
  }
}

describe("runAgentLoop: ids the model misuses (docs/security.md case 131)", () => {
  it("case 131: gives a reused, empty or overlong call id a fresh one, runs every call once under a unique key, and goes on", async () => {
    const { tools, calls } = fakeTools();
    const read = (id: string, file: string) => ({ id, name: "read_file", arguments: { file_path: `{bundle-root}/${file}` } });
    const model = new InMemoryModel([
      { toolCalls: [read("call_0", "a.md"), read("call_0", "b.md")] },
      { toolCalls: [read("call_0", "c.md")] },
      { toolCalls: [read("", "d.md"), read("x".repeat(300), "e.md")] },
      { text: "all read" },
    ]);
    const added: ChatCompletionMessageParam[] = [];
    const { run, events } = loop(model, { tools, added });
    expect(await run()).toMatchObject({ response: "all read", iterations: 4 });
    expect(calls.map((call) => call.args)).toEqual(["a", "b", "c", "d", "e"].map((name) => ({ file_path: `{bundle-root}/${name}.md` })));
    const keys = calls.map((call) => call.callId);
    expect(new Set(keys).size).toBe(5);
    expect(keys.every((key) => key.startsWith("run1:1:") && key.length <= 256)).toBe(true);
    expect(toolResults(events).every((event) => event.success)).toBe(true);
    // the ids the model is shown are the ones stored, each call paired with its result
    for (const request of model.requests) expectPairedIds(request.messages);
    expectPairedIds(added);
    const storedIds = added.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : []));
    expect(storedIds).toEqual(toolResults(events).map((event) => event.call_id));
    expect(new Set(storedIds).size).toBe(5);
  });

  it("case 131: gives a fresh id to a call reusing an id from earlier in the conversation", async () => {
    const { tools, calls } = fakeTools();
    const model = new InMemoryModel([{ toolCalls: [{ id: "old", name: "read_file", arguments: { file_path: "{bundle-root}/a.md" } }] }, { text: "ok" }]);
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: "You are a test agent." },
      { role: "user", content: "before" },
      { role: "assistant", content: null, tool_calls: [{ id: "old", type: "function", function: { name: "read_file", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "old", content: "{}" },
      { role: "assistant", content: "done before" },
      { role: "user", content: "go" },
    ];
    await loop(model, { tools, messages }).run();
    expect(calls.map((call) => call.callId)).toEqual(["run1:1:call_run1_1_1"]);
    expectPairedIds(model.requests[1]?.messages ?? []);
  });
});

/** A model that streams `piece` without end (until `giveUpAfter` pieces), and tells whether its stream was stopped. */
function endlessModel(piece: ModelStreamPart, giveUpAfter = 1_000) {
  const state = { sent: 0, stopped: false };
  const model: ModelCaller = {
    async *stream() {
      try {
        for (; state.sent < giveUpAfter; state.sent++) yield piece;
        throw new Error("the loop kept reading an endless answer");
      } finally {
        state.stopped = true;
      }
    },
  };
  return { model, state };
}

describe("runAgentLoop: bounded model output (docs/security.md cases 126, 128)", () => {
  it("case 126: stops an endless answer at answerMaxBytes, publishes and keeps exactly the text up to it, and ends with MODEL_OUTPUT_TOO_LARGE", async () => {
    const piece = "é".repeat(32 * 1024); // 64 KiB, two bytes a character, so the cut falls inside a piece
    const { model, state } = endlessModel({ type: "text", text: piece });
    const added: ChatCompletionMessageParam[] = [];
    const { run, events } = loop(new InMemoryModel([]), { model, added, limits: { answerMaxBytes: 1_000_001 } });
    await expect(run()).rejects.toMatchObject({ code: "MODEL_OUTPUT_TOO_LARGE", message: expect.stringContaining("1000001 bytes") });
    expect(state.stopped).toBe(true);
    expect(state.sent).toBeLessThan(20);
    const sent = events.map((event) => (event.type === "delta" ? event.text : "")).join("");
    expect(added).toEqual([{ role: "assistant", content: sent }]);
    const [answer, note] = sent.split("\n\n[The answer was cut here");
    expect(Buffer.byteLength(answer ?? "")).toBe(1_000_000);
    expect(note).toContain("1000001 bytes");
  });

  it("case 126: counts tool-call fragments against the same limit, and runs none of a cut answer's calls", async () => {
    const { tools, calls } = fakeTools();
    const { model, state } = endlessModel({ type: "tool-call-deltas", deltas: [{ index: 0, id: "c1", function: { name: "save_output", arguments: "x".repeat(64 * 1024) } }] });
    const added: ChatCompletionMessageParam[] = [];
    await expect(loop(new InMemoryModel([]), { model, tools, added, limits: { answerMaxBytes: 256 * 1024 } }).run()).rejects.toMatchObject({ code: "MODEL_OUTPUT_TOO_LARGE" });
    expect(state.stopped).toBe(true);
    expect(calls).toEqual([]);
    expect(added).toEqual([{ role: "assistant", content: expect.stringMatching(/^\n\n\[The answer was cut here/) }]);
  });

  it("case 128: ends a turn whose answers together pass turnOutputMaxBytes, keeping the rounds before it whole", async () => {
    const { tools, calls } = fakeTools();
    const save = (index: number): InMemoryAnswer => ({
      text: `part ${index}`,
      toolCalls: [{ name: "save_output", arguments: { file_path: `{session-folder}/part-${index}.md`, content: "y".repeat(300_000) } }],
    });
    const model = new InMemoryModel(() => save(calls.length + 1));
    const added: ChatCompletionMessageParam[] = [];
    const { run, events } = loop(model, { tools, added, limits: { answerMaxBytes: 1024 * 1024, turnOutputMaxBytes: 1024 * 1024 } });
    await expect(run()).rejects.toMatchObject({ code: "MODEL_OUTPUT_TOO_LARGE", message: expect.stringContaining("in one turn") });
    expect(calls).toHaveLength(3);
    expect(added.map((message) => message.role)).toEqual(["assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(added.at(-1)).toEqual({ role: "assistant", content: expect.stringMatching(/^part 4\n\n\[The answer was cut here: it passed 1048576 bytes/) });
    expect(events.at(-1)).toMatchObject({ type: "delta", text: expect.stringContaining("cut here") });
  });

  it("case 126: treats a stream the transport stopped for size (capped-event-fetch) as an answer cut there", async () => {
    const tooBig = new AppError("MODEL_OUTPUT_TOO_LARGE", "The model sent one piece of its answer larger than 100 bytes; it was cut there and the turn was stopped");
    const added: ChatCompletionMessageParam[] = [];
    const { run, events } = loop(new InMemoryModel([{ text: "so far", failAfterText: tooBig }]), { added });
    await expect(run()).rejects.toBe(tooBig);
    const sent = events.map((event) => (event.type === "delta" ? event.text : "")).join("");
    expect(added).toEqual([{ role: "assistant", content: sent }]);
    expect(sent).toMatch(/^so far\n\n\[The answer was cut here/);
  });
});

/** A guard that compacts only when forced, into a marker that stands for a hand-off, and records what it was asked. */
function recordingGuard() {
  const asked: Array<{ force: boolean; length: number }> = [];
  const observed: number[] = [];
  const guard: ContextGuard = {
    prepare(conversation, _tools, _signal, { force = false, reported } = {}) {
      if (reported) observed.push(reported.prompt_tokens);
      asked.push({ force, length: conversation.length });
      if (!force) return Promise.resolve({ messages: [...conversation] });
      const marker: CompactionMarker = {
        role: "system",
        content: "HAND-OFF",
        compaction: { stage: "summary", before_tokens: 900, after_tokens: 300, kept_from: conversation.length - 1, reason: "overflow", at: "2026-11-28T00:00:00.000Z" },
      };
      const usage = { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 };
      return Promise.resolve({ messages: [conversation[0] as ChatCompletionMessageParam, { role: "user", content: "HAND-OFF" }], compaction: { marker, usage } });
    },
  };
  return { guard, asked, observed };
}

const overflow = () => new AppError("MODEL_UNAVAILABLE", "The conversation is longer than the model's context window", { detail: { status: 400, reason: "context_length_exceeded" } });

describe("runAgentLoop: the context window (docs/models.md \"Compaction\")", () => {
  it("answers a provider's context-length refusal with one compaction and one retry, and keeps the compaction's marker", async () => {
    const model = new InMemoryModel([{ fail: overflow() }, { text: "resumed at step 2", usage: { prompt_tokens: 300, completion_tokens: 4, total_tokens: 304 } }]);
    const { guard, asked } = recordingGuard();
    const { run, events } = loop(model, { contextGuard: guard });
    const output = await run();
    expect(output.response).toBe("resumed at step 2");
    expect(asked.map((question) => question.force)).toEqual([false, true]);
    expect(model.requests.map((request) => request.messages.length)).toEqual([2, 2]);
    expect(model.requests[1]?.messages[1]?.content).toContain("HAND-OFF");
    expect(events.filter((event) => event.type === "compaction")).toEqual([{ type: "compaction", before_tokens: 900, after_tokens: 300, stage: "summary", reason: "overflow" }]);
    expect(output.added.map((message) => message.role)).toEqual(["system", "assistant"]);
    // the summary's tokens are the turn's
    expect(output.usageByCall.map((usage) => usage.total_tokens)).toEqual([55, 304]);
  });

  it("tells the guard what the provider counted of each prompt as it asks for the next one", async () => {
    const model = new InMemoryModel([
      { ...readConfig, usage: { prompt_tokens: 300, completion_tokens: 4, total_tokens: 304 } },
      { text: "done", usage: { prompt_tokens: 400, completion_tokens: 2, total_tokens: 402 } },
    ]);
    const { guard, asked, observed } = recordingGuard();
    await loop(model, { contextGuard: guard }).run();
    expect(asked.map((question) => question.force)).toEqual([false, false]);
    expect(observed).toEqual([300]);
  });

  it("never loops: a second refusal after the compaction ends the turn", async () => {
    const model = new InMemoryModel([{ fail: overflow() }, { fail: overflow() }, { text: "never" }]);
    const { guard, asked } = recordingGuard();
    await expect(loop(model, { contextGuard: guard }).run()).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE", message: expect.stringContaining("context window") });
    expect(asked.map((question) => question.force)).toEqual([false, true]);
    expect(model.requests).toHaveLength(2);
  });

  it("does not compact for any other refusal", async () => {
    const model = new InMemoryModel([{ fail: new AppError("MODEL_UNAVAILABLE", "The model refused the request (HTTP 400)", { detail: { status: 400 } }) }]);
    const { guard, asked } = recordingGuard();
    await expect(loop(model, { contextGuard: guard }).run()).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
    expect(asked).toHaveLength(1);
  });
});
