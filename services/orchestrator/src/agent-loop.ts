import type OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from "openai/resources/chat/completions";
import {
  AppError,
  addUsage,
  getOwn,
  parseJson,
  toolCatalog,
  toolDefinitionsForModel,
  ToolName,
  zeroUsage,
  type RunEventBody,
  type ToolArgs,
  type ToolContext,
  type ToolResult,
  type Usage,
} from "@agent-orchestrator/shared";
import { fitContext } from "./context-budget.js";
import { mapWithConcurrency } from "./map-with-concurrency.js";
import { ModelCallTelemetry } from "./model-call-telemetry.js";
import { toModelError } from "./model-error.js";
import type { ToolClient } from "./tool-client.js";
import { ToolCallAccumulator, type StreamedToolCall } from "./tool-call-accumulator.js";
import { truncateMiddle } from "./truncate-middle.js";

export interface LoopLimits {
  maxIterations: number;
  toolConcurrency: number;
  maxToolCallsPerAnswer: number;
  contextBudgetTokens: number;
  toolResultMaxChars: number;
  maxInvalidToolCalls: number;
  modelTimeoutMs: number;
}

export interface TurnInput {
  client: OpenAI;
  model: string;
  /** system prompt, earlier conversation and the new user message */
  messages: ChatCompletionMessageParam[];
  tools: ToolClient;
  /** the tools offered to this agent's model (`toolsForAgent`); a call to any other is an UNKNOWN_TOOL result */
  toolNames: readonly ToolName[];
  context: ToolContext;
  runId: string;
  emit: (event: RunEventBody) => void;
  signal: AbortSignal;
  limits: LoopLimits;
  /** runs the model's run_subagent calls; without it run_subagent is not offered (a subagent at the depth limit) */
  subagents?: SubagentCaller;
}

/** The orchestrator's own run_subagent tool: `callId` is the model's call id, which nests the child's events. */
export interface SubagentCaller {
  call(callId: string, args: ToolArgs["run_subagent"], signal: AbortSignal): Promise<ToolResult>;
}

export interface TurnOutput {
  response: string;
  iterations: number;
  usage: Usage;
  /** the usage of each model call, in order */
  usageByCall: Usage[];
  /** what the turn added to the conversation: assistant and tool messages */
  added: ChatCompletionMessageParam[];
}

/** The offered tools as given by `toolsForAgent`, but run_subagent only when there is someone to run it. */
const offeredTools = (input: TurnInput): readonly ToolName[] => input.toolNames.filter((name) => name !== "run_subagent" || input.subagents);

/**
 * The agentic loop (spec/001 §3): call the model with the tools, run the tool calls it makes, append
 * the results, and call it again until it answers without tool calls.
 */
export async function runAgentLoop(input: TurnInput): Promise<TurnOutput> {
  const messages = [...input.messages];
  const added: ChatCompletionMessageParam[] = [];
  let usage = zeroUsage();
  const usageByCall: Usage[] = [];
  let invalidInARow = 0;
  const offered = offeredTools(input);
  const definitions = toolDefinitionsForModel(offered);

  for (let iteration = 1; iteration <= input.limits.maxIterations; iteration++) {
    const step = await streamModelTurn(input, definitions, fitContext(messages, input.limits.contextBudgetTokens));
    usage = addUsage(usage, step.usage);
    usageByCall.push(step.usage);

    if (step.toolCalls.length === 0) {
      if (step.text.trim() === "") {
        const reason = step.finishReason === "content_filter" ? "refused to answer (content filter)" : "returned an empty answer";
        throw new AppError("MODEL_UNAVAILABLE", `The model ${reason}; please rephrase or try again`);
      }
      const final: ChatCompletionMessageParam = { role: "assistant", content: step.text };
      added.push(final);
      return { response: step.text, iterations: iteration, usage, usageByCall, added };
    }
    if (step.finishReason === "length") {
      throw new AppError("MODEL_UNAVAILABLE", "The model's answer was cut off by its length limit; its tool calls were not run");
    }

    const assistant: ChatCompletionMessageParam = {
      role: "assistant",
      content: step.text || null,
      tool_calls: step.toolCalls.map(
        (call): ChatCompletionMessageToolCall => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }),
      ),
    };
    const prepared = prepareToolCalls(step.toolCalls, input.limits.maxToolCallsPerAnswer, offered);
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

interface ModelStep {
  text: string;
  toolCalls: StreamedToolCall[];
  usage: Usage;
  finishReason: string | null;
}

/** One streamed model call: text deltas are published as they come; tool calls are returned whole. */
async function streamModelTurn(
  input: TurnInput,
  tools: ReturnType<typeof toolDefinitionsForModel>,
  messages: ChatCompletionMessageParam[],
): Promise<ModelStep> {
  const accumulator = new ToolCallAccumulator();
  let text = "";
  let usage = zeroUsage();
  let finishReason: string | null = null;
  const telemetry = new ModelCallTelemetry(input.model);
  // each call gets its own signal: the openai client never removes the abort listener it adds, so a
  // long turn sharing the turn's signal would pile them up
  const call = new AbortController();
  const relayAbort = () => call.abort(input.signal.reason);
  if (input.signal.aborted) relayAbort();
  else input.signal.addEventListener("abort", relayAbort, { once: true });
  try {
    const stream = await input.client.chat.completions.create(
      { model: input.model, messages, tools, stream: true, stream_options: { include_usage: true } },
      { signal: call.signal, timeout: input.limits.modelTimeoutMs },
    );
    for await (const chunk of stream) {
      telemetry.chunk(chunk);
      const choice = chunk.choices[0];
      if (chunk.usage) {
        usage = {
          prompt_tokens: chunk.usage.prompt_tokens,
          completion_tokens: chunk.usage.completion_tokens,
          total_tokens: chunk.usage.total_tokens,
        };
      }
      if (!choice) continue;
      const piece = choice.delta.content;
      if (piece) {
        text += piece;
        input.emit({ type: "delta", text: piece });
      }
      if (choice.delta.tool_calls) accumulator.add(choice.delta.tool_calls);
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (error) {
    throw telemetry.failed(toModelError(error, { textStreamed: text.length > 0, signal: input.signal }));
  } finally {
    input.signal.removeEventListener("abort", relayAbort);
    telemetry.end(usage, finishReason);
  }
  if (input.signal.aborted) throw toModelError(new Error("aborted"), { textStreamed: text.length > 0, signal: input.signal });
  return { text, toolCalls: accumulator.result(), usage, finishReason };
}

type PreparedCall =
  | { valid: true; id: string; name: ToolName; args: Record<string, unknown> }
  | { valid: false; id: string; name: string; args: Record<string, unknown>; error: ToolResult };

/** Checks each call before anything runs: within the per-answer cap, an offered tool, JSON arguments, schema, unique id. */
function prepareToolCalls(calls: readonly StreamedToolCall[], maxCalls: number, offered: readonly ToolName[]): PreparedCall[] {
  const seen = new Set<string>();
  const availableTools = offered.join(", ");
  return calls.map((call, index): PreparedCall => {
    const id = call.id || `call_missing_${index}`;
    const invalid = (message: string, args: Record<string, unknown> = {}, code: "INVALID_TOOL_CALL" | "UNKNOWN_TOOL" = "INVALID_TOOL_CALL"): PreparedCall => ({
      valid: false,
      id,
      name: call.name,
      args,
      error: { success: false, error: { code, message } },
    });
    if (index >= maxCalls) return invalid(`Too many tool calls in one answer (at most ${maxCalls}); this call was not run. Make it again after these results.`);
    if (seen.has(id)) return invalid(`The tool call id ${id} was used twice in one answer; this call was not run.`);
    seen.add(id);

    const entry = getOwn(toolCatalog as Record<string, (typeof toolCatalog)[ToolName]>, call.name);
    if (!entry || !offered.includes(call.name as ToolName)) return invalid(`Unknown tool "${call.name}". Available tools: ${availableTools}.`, {}, "UNKNOWN_TOOL");
    const parsed = parseJson(call.arguments || "{}");
    if (!parsed.ok) return invalid(`The arguments are not valid JSON (${parsed.error}). Send a JSON object.`);
    const checked = entry.args.safeParse(parsed.value);
    const shown = isRecord(parsed.value) ? parsed.value : {};
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return invalid(`Invalid arguments for ${call.name}: ${issue?.path.join(".") || "(arguments)"}: ${issue?.message ?? "invalid"}`, shown);
    }
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
