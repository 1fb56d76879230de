import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from "openai/resources/chat/completions";
import { AppError, firstIssue, mapWithConcurrency, parseJson } from "@agent-orchestrator/shared/runtime";
import {
  addUsage,
  getOwn,
  joinAnswerTexts,
  toolCatalog,
  toolDefinitionsForModel,
  ToolName,
  zeroUsage,
  type RunEventBody,
  type ToolArgs,
  type ToolContext,
  type ToolResult,
  type Usage,
} from "@agent-orchestrator/shared/wire";
import { prefixWithinBytes } from "../events/bounded-event.js";
import type { ContextGuard } from "./context-guard.js";
import { withConversationNote } from "./conversation-note.js";
import type { ModelCaller } from "./model-caller.js";
import { isContextOverflow, toModelError } from "./model-error.js";
import type { LoopLimits } from "./loop-limits.js";
import { ModelOutputBudget, toolCallOverheadBytes } from "./model-output-budget.js";
import type { ToolCaller } from "./tool-caller.js";
import { ToolCallAccumulator, type StreamedToolCall, type ToolCallDelta } from "./tool-call-accumulator.js";
import { ToolCallIds } from "./tool-call-ids.js";
import { truncateMiddle } from "./truncate-middle.js";

export interface TurnInput {
  /** the model, behind its seam (`openAiModel` in the orchestrator, a scripted fake in tests) */
  model: ModelCaller;
  /** system prompt, earlier conversation and the new user message */
  messages: ChatCompletionMessageParam[];
  /**
   * a note the model reads at the start of the conversation on every call (today's date: `dateNote`, added by
   * `withConversationNote`), kept out of the system prompt so that it stays the same bytes (docs/models.md
   * "Prompt caching"); never stored
   */
  conversationNote?: string;
  /** the tools, behind their seam (the NATS `ToolClient` in the orchestrator) */
  tools: ToolCaller;
  /** the tools offered to this agent's model (`toolsForAgent`); a call to any other is an UNKNOWN_TOOL result */
  toolNames: readonly ToolName[];
  context: ToolContext;
  runId: string;
  emit: (event: RunEventBody) => void;
  signal: AbortSignal;
  limits: LoopLimits;
  /** runs the model's run_subagent calls; without it run_subagent is not offered (a subagent at the depth limit) */
  subagents?: SubagentCaller;
  /**
   * the array the turn's assistant and tool messages are added to as they come (`TurnOutput.added`); a caller
   * that passes its own keeps what a failed turn added, e.g. an answer cut at its size limit
   */
  added?: ChatCompletionMessageParam[];
  /**
   * keeps every call within the route's context window (compaction/): asked for each call's prompt; without it the
   * model is sent the whole conversation
   */
  contextGuard?: ContextGuard;
}

/** The orchestrator's own run_subagent tool: `callId` is the model's call id, which nests the child's events. */
export interface SubagentCaller {
  call(callId: string, args: ToolArgs["run_subagent"], signal: AbortSignal): Promise<ToolResult>;
}

export interface TurnOutput {
  /** the turn's answer: the text of every model call, not only the last (joinAnswerTexts), as `/v1` streams it */
  response: string;
  iterations: number;
  usage: Usage;
  /** the usage of each model call, in order (a hand-off summary's included) */
  usageByCall: Usage[];
  /** what the turn added to the conversation: assistant and tool messages, and the markers of its compactions */
  added: ChatCompletionMessageParam[];
}

/** The offered tools as given by `toolsForAgent`, but run_subagent only when there is someone to run it. */
const offeredTools = (input: TurnInput): readonly ToolName[] => input.toolNames.filter((name) => name !== "run_subagent" || input.subagents);

/**
 * The agentic loop (docs/design.md "The agentic loop"): call the model with the tools, run the tool calls it makes, append
 * the results, and call it again until it answers without tool calls.
 */
export async function runAgentLoop(input: TurnInput): Promise<TurnOutput> {
  const messages = [...input.messages];
  const added = input.added ?? [];
  const budget = new ModelOutputBudget(input.limits.answerMaxBytes, input.limits.turnOutputMaxBytes);
  const ids = new ToolCallIds(input.runId, input.messages);
  let usage = zeroUsage();
  const usageByCall: Usage[] = [];
  let invalidInARow = 0;
  // each model call's text, the tool rounds' included: the turn's answer is all of it
  const texts: string[] = [];
  const offered = offeredTools(input);
  const definitions = toolDefinitionsForModel(offered);

  for (let iteration = 1; iteration <= input.limits.maxIterations; iteration++) {
    const prompt = async (force: boolean): Promise<ChatCompletionMessageParam[]> => {
      const guarded = await guardedPrompt(input, messages, added, definitions, force);
      if (guarded.usage) {
        usage = addUsage(usage, guarded.usage);
        usageByCall.push(guarded.usage);
      }
      return guarded.messages;
    };
    let step: ModelStep;
    try {
      step = await streamModelTurn(input, definitions, await prompt(false), budget);
    } catch (error) {
      // the provider counted more than the guard did: one compaction and one retry, never a loop (a second refusal ends the turn)
      if (!input.contextGuard || !isContextOverflow(error)) throw error;
      step = await streamModelTurn(input, definitions, await prompt(true), budget);
    }
    input.contextGuard?.observe(step.usage);
    usage = addUsage(usage, step.usage);
    usageByCall.push(step.usage);
    if (step.cut) {
      // the client has had the text up to the cut and the note: the conversation keeps the same (its tool calls were incomplete)
      added.push({ role: "assistant", content: step.text + step.cut.note });
      throw step.cut.error;
    }
    texts.push(step.text);

    if (step.toolCalls.length === 0) {
      if (step.text.trim() === "") {
        const reason = step.finishReason === "content_filter" ? "refused to answer (content filter)" : "returned an empty answer";
        throw new AppError("MODEL_UNAVAILABLE", `The model ${reason}; please rephrase or try again`);
      }
      const final: ChatCompletionMessageParam = { role: "assistant", content: step.text };
      added.push(final);
      return { response: joinAnswerTexts(texts), iterations: iteration, usage, usageByCall, added };
    }
    if (step.finishReason === "length") {
      throw new AppError("MODEL_UNAVAILABLE", "The model's answer was cut off by its length limit; its tool calls were not run");
    }

    const calls = ids.assign(step.toolCalls);
    const assistant: ChatCompletionMessageParam = {
      role: "assistant",
      content: step.text || null,
      tool_calls: calls.map(
        (call): ChatCompletionMessageToolCall => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }),
      ),
    };
    const prepared = prepareToolCalls(calls, input.limits.maxToolCallsPerAnswer, offered);
    const results = await mapWithConcurrency(prepared, input.limits.toolConcurrency, (call) => executeToolCall(input, call));

    const toolMessages: ChatCompletionMessageParam[] = prepared.map((call, index) => ({
      role: "tool",
      tool_call_id: call.id,
      content: truncateMiddle(JSON.stringify(results[index]), input.limits.toolResultMaxChars),
    }));
    messages.push(assistant, ...toolMessages);
    added.push(assistant, ...toolMessages);

    const anyValid = prepared.some((call) => call.valid);
    invalidInARow = anyValid ? 0 : invalidInARow + prepared.length;
    if (invalidInARow >= input.limits.maxInvalidToolCalls) {
      throw new AppError("INVALID_TOOL_CALL", `The model made ${invalidInARow} invalid tool calls in a row; the turn was stopped`);
    }
  }
  throw new AppError("MAX_ITERATIONS", `The agent did not finish within ${input.limits.maxIterations} model calls; the turn was stopped`);
}

/**
 * The prompt of the next call: the conversation as the guard shapes it (its compaction's marker added to the
 * conversation and to what the turn stores, and announced), then the note of the day; the usage of a hand-off
 * summary written for it.
 */
async function guardedPrompt(
  input: TurnInput,
  messages: ChatCompletionMessageParam[],
  added: ChatCompletionMessageParam[],
  definitions: ReturnType<typeof toolDefinitionsForModel>,
  force: boolean,
): Promise<{ messages: ChatCompletionMessageParam[]; usage?: Usage }> {
  if (!input.contextGuard) return { messages: withConversationNote(messages, input.conversationNote) };
  const guarded = await input.contextGuard.prepare(messages, definitions, input.signal, force);
  const compaction = guarded.compaction;
  if (compaction) {
    const marker = compaction.marker as unknown as ChatCompletionMessageParam;
    messages.push(marker);
    added.push(marker);
    const { before_tokens, after_tokens, stage, reason } = compaction.marker.compaction;
    input.emit({ type: "compaction", before_tokens, after_tokens, stage, reason });
  }
  return { messages: withConversationNote(guarded.messages, input.conversationNote), ...(compaction?.usage ? { usage: compaction.usage } : {}) };
}

interface ModelStep {
  text: string;
  toolCalls: StreamedToolCall[];
  usage: Usage;
  finishReason: string | null;
  /** the answer passed its size limit: `text` is what was kept, `note` was published after it */
  cut?: { error: AppError; note: string };
}

/**
 * One streamed model call: text deltas are published as they come; tool calls are returned whole. Each piece
 * is counted against the output budget before it is kept: once the answer passes it, the stream is stopped
 * (leaving the loop ends the model call) and the text up to the limit is all that was published and kept.
 */
async function streamModelTurn(
  input: TurnInput,
  tools: ReturnType<typeof toolDefinitionsForModel>,
  messages: ChatCompletionMessageParam[],
  budget: ModelOutputBudget,
): Promise<ModelStep> {
  const accumulator = new ToolCallAccumulator();
  let text = "";
  let usage = zeroUsage();
  let finishReason: string | null = null;
  let cut: ModelStep["cut"];
  budget.startAnswer();
  try {
    const stream = input.model.stream({ messages, tools, signal: input.signal });
    for await (const part of stream) {
      if (part.type === "usage") usage = part.usage;
      else if (part.type === "text") {
        const fits = budget.take(Buffer.byteLength(part.text, "utf8"));
        const kept = fits ? part.text : prefixWithinBytes(part.text, budget.room);
        if (!fits) budget.take(Buffer.byteLength(kept, "utf8"));
        text += kept;
        if (kept) input.emit({ type: "delta", text: kept });
        if (!fits) {
          cut = budget.exceeded();
          break;
        }
      } else if (part.type === "tool-call-deltas") {
        const started = accumulator.count;
        accumulator.add(part.deltas);
        if (!budget.take(toolCallBytes(part.deltas) + (accumulator.count - started) * toolCallOverheadBytes)) {
          cut = budget.exceeded();
          break;
        }
      } else finishReason = part.reason;
    }
  } catch (error) {
    // a transport-level bound (line-capped-fetch.ts) stops the stream with this code: the answer is cut the same way
    if (!AppError.is(error) || error.code !== "MODEL_OUTPUT_TOO_LARGE") throw toModelError(error, { textStreamed: text.length > 0, signal: input.signal });
    cut = { error, note: "\n\n[The answer was cut here: the model sent more in one piece than the system accepts.]" };
  }
  if (input.signal.aborted) throw toModelError(new Error("aborted"), { textStreamed: text.length > 0, signal: input.signal });
  if (cut) {
    input.emit({ type: "delta", text: cut.note });
    return { text, toolCalls: [], usage, finishReason, cut };
  }
  return { text, toolCalls: accumulator.result(), usage, finishReason };
}

/** The text a batch of tool-call fragments adds to the answer (ids, names, arguments). */
const toolCallBytes = (deltas: readonly ToolCallDelta[]): number =>
  deltas.reduce(
    (sum, delta) =>
      sum + Buffer.byteLength(delta.id ?? "", "utf8") + Buffer.byteLength(delta.function?.name ?? "", "utf8") + Buffer.byteLength(delta.function?.arguments ?? "", "utf8"),
    0,
  );

type PreparedCall =
  | { valid: true; id: string; name: ToolName; args: Record<string, unknown> }
  | { valid: false; id: string; name: string; args: Record<string, unknown>; error: ToolResult };

/**
 * Checks each call before anything runs: within the per-answer cap, an offered tool, JSON arguments, schema.
 * Ids are already unique (ToolCallIds).
 */
function prepareToolCalls(calls: readonly StreamedToolCall[], maxCalls: number, offered: readonly ToolName[]): PreparedCall[] {
  const availableTools = offered.join(", ");
  return calls.map((call, index): PreparedCall => {
    const { id } = call;
    const invalid = (message: string, args: Record<string, unknown> = {}, code: "INVALID_TOOL_CALL" | "UNKNOWN_TOOL" = "INVALID_TOOL_CALL"): PreparedCall => ({
      valid: false,
      id,
      name: call.name,
      args,
      error: { success: false, error: { code, message } },
    });
    if (index >= maxCalls) return invalid(`Too many tool calls in one answer (at most ${maxCalls}); this call was not run. Make it again after these results.`);

    const entry = getOwn(toolCatalog as Record<string, (typeof toolCatalog)[ToolName]>, call.name);
    if (!entry || !offered.includes(call.name as ToolName)) return invalid(`Unknown tool "${call.name}". Available tools: ${availableTools}.`, {}, "UNKNOWN_TOOL");
    const parsed = parseJson(call.arguments || "{}");
    if (!parsed.ok) return invalid(`The arguments are not valid JSON (${parsed.error}). Send a JSON object.`);
    const checked = entry.args.safeParse(parsed.value);
    const shown = isRecord(parsed.value) ? parsed.value : {};
    if (!checked.success) return invalid(`Invalid arguments for ${call.name}: ${firstIssue(checked.error, "(arguments)")}`, shown);
    return { valid: true, id, name: call.name as ToolName, args: checked.data as Record<string, unknown> };
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

async function executeToolCall(input: TurnInput, call: PreparedCall): Promise<ToolResult> {
  input.emit({ type: "tool_call", call_id: call.id, name: call.name, arguments: call.args });
  const started = performance.now();
  const result = !call.valid
    ? call.error
    : call.name === "run_subagent" && input.subagents
      ? await input.subagents.call(call.id, call.args as ToolArgs["run_subagent"], input.signal)
      : await input.tools.call(call.name, `${input.runId}:${call.id}`, input.context, call.args, input.signal);
  const path = result.success ? result["path"] : undefined;
  input.emit({
    type: "tool_result",
    call_id: call.id,
    name: call.name,
    success: result.success,
    ...(result.success ? {} : { error_code: result.error.code }),
    ...(typeof path === "string" ? { path } : {}),
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  });
  return result;
}
