import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from "openai/resources/chat/completions";
import { AppError } from "@agent-orchestrator/shared/runtime";
import {
  addUsage,
  joinAnswerTexts,
  toolDefinitionsForModel,
  type RunEventBody,
  type ToolArgs,
  type ToolContext,
  type ToolName,
  type ToolResult,
  type Usage,
  zeroUsage,
} from "@agent-orchestrator/shared/wire";
import { prefixWithinBytes } from "../events/bounded-event.js";
import type { ContextGuard, PromptAsked } from "./context-guard.js";
import { dateNote, withConversationNote } from "./conversation-note.js";
import type { ModelCaller } from "./model-caller.js";
import { isContextOverflow, toModelError } from "./model-error.js";
import type { LoopLimits } from "./loop-limits.js";
import { ModelOutputBudget, toolCallOverheadBytes } from "./model-output-budget.js";
import type { ToolCaller } from "./tool-caller.js";
import { ToolCallAccumulator, type StreamedToolCall, type ToolCallDelta } from "./tool-call-accumulator.js";
import { ToolCallIds } from "./tool-call-ids.js";
import { prepareToolCalls } from "./prepared-call.js";
import type { CallDecision, PausedCall, ToolGate } from "./tool-gate.js";
import { runToolRound, unansweredCalls } from "./tool-round.js";

export interface TurnInput {
  /** the model, behind its seam (`openAiModel` in the orchestrator, a scripted fake in tests) */
  model: ModelCaller;
  /** system prompt, earlier conversation and the new user message */
  messages: ChatCompletionMessageParam[];
  /**
   * the day the model is told of at the start of the conversation on every call (`dateNote`, added by
   * `withConversationNote`), kept out of the system prompt so that it stays the same bytes (docs/models.md
   * "Prompt caching"); never stored. Without it the model is told no date
   */
  today?: Date;
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
  /** asked before each valid tool call (docs/approvals.md): allow, deny, or stop the turn at a call that waits; without it every call runs */
  gate?: ToolGate;
  /**
   * a turn resumed after a member's decision: the calls of the answer it stopped at that have no result yet (the
   * decided one first), run or answered before the model is called again
   */
  resume?: { calls: StreamedToolCall[]; decision: CallDecision };
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
  /** set when the turn stopped at a call that waits for a member's decision (the gate said ask) */
  paused?: PausedCall;
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

  if (input.resume) {
    // the answer the turn stopped at: the decided call, then the calls after it, before the model is called again
    const pending = prepareToolCalls(input.resume.calls, input.limits.maxToolCallsPerAnswer, offered, input.gate);
    const ended = endingOf(input.resume.decision);
    const round = ended ? { toolMessages: unansweredCalls(input, pending, ended), anyValid: true } : await runToolRound(input, pending, input.resume.decision);
    messages.push(...round.toolMessages);
    added.push(...round.toolMessages);
    if (ended) throw ended;
    if ("paused" in round && round.paused) return { response: "", iterations: 0, usage, usageByCall, added, paused: round.paused };
  }

  // what the provider counted of the last prompt, told to the guard as it is asked for the next
  let reported: Usage | undefined;
  for (let iteration = 1; iteration <= input.limits.maxIterations; iteration++) {
    const prompt = async (force: boolean): Promise<ChatCompletionMessageParam[]> => {
      const guarded = await guardedPrompt(input, messages, added, definitions, { force, reported });
      reported = undefined;
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
    reported = step.usage;
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
    const prepared = prepareToolCalls(calls, input.limits.maxToolCallsPerAnswer, offered, input.gate);
    const round = await runToolRound(input, prepared);
    messages.push(assistant, ...round.toolMessages);
    added.push(assistant, ...round.toolMessages);
    // a call waits for a member's decision: the turn stops here, to be resumed from what it added (docs/approvals.md)
    if (round.paused) return { response: joinAnswerTexts(texts), iterations: iteration, usage, usageByCall, added, paused: round.paused };

    invalidInARow = round.anyValid ? 0 : invalidInARow + prepared.length;
    if (invalidInARow >= input.limits.maxInvalidToolCalls) {
      throw new AppError("INVALID_TOOL_CALL", `The model made ${invalidInARow} invalid tool calls in a row; the turn was stopped`);
    }
  }
  throw new AppError("MAX_ITERATIONS", `The agent did not finish within ${input.limits.maxIterations} model calls; the turn was stopped`);
}

/**
 * The prompt of the next call: the conversation as the guard shapes it, the note of the day included (its
 * compaction's marker added to the conversation and to what the turn stores, and announced); the usage of a
 * hand-off summary written for it.
 */
async function guardedPrompt(
  input: TurnInput,
  messages: ChatCompletionMessageParam[],
  added: ChatCompletionMessageParam[],
  definitions: ReturnType<typeof toolDefinitionsForModel>,
  asked: PromptAsked,
): Promise<{ messages: ChatCompletionMessageParam[]; usage?: Usage }> {
  if (!input.contextGuard) return { messages: withConversationNote(messages, input.today && dateNote(input.today)) };
  const guarded = await input.contextGuard.prepare(messages, definitions, input.signal, { ...asked, today: input.today });
  const compaction = guarded.compaction;
  if (compaction) {
    const marker = compaction.marker as unknown as ChatCompletionMessageParam;
    messages.push(marker);
    added.push(marker);
    const { before_tokens, after_tokens, stage, reason } = compaction.marker.compaction;
    input.emit({ type: "compaction", before_tokens, after_tokens, stage, reason });
  }
  return { messages: guarded.messages, ...(compaction?.usage ? { usage: compaction.usage } : {}) };
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

/**
 * The error a resumed turn ends with when its call was not decided: it expired (APPROVAL_EXPIRED), or the chat was
 * cancelled (CANCELLED); undefined for a member's decision, which the turn goes on from.
 */
function endingOf(decision: CallDecision): AppError | undefined {
  if (decision.outcome === "expire") {
    return new AppError("APPROVAL_EXPIRED", `Nobody decided on the tool call in time${decision.expiredAt ? ` (it expired at ${decision.expiredAt})` : ""}; the turn ended, keeping what it wrote`);
  }
  if (decision.outcome === "cancel") return new AppError("CANCELLED", `The chat was cancelled${decision.by ? ` by ${decision.by}` : ""} while a tool call waited for a decision`);
  return undefined;
}
