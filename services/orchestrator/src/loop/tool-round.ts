import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { AppError, mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { toolCatalog, type RunEventBody, type ToolArgs, type ToolContext, type ToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import type { LoopLimits } from "./loop-limits.js";
import type { PreparedCall } from "./prepared-call.js";
import type { ToolCaller } from "./tool-caller.js";
import type { CallDecision, PausedCall } from "./tool-gate.js";
import { truncateMiddle } from "./truncate-middle.js";

/** What a round of tool calls needs of the turn. */
export interface RoundInput {
  tools: ToolCaller;
  context: ToolContext;
  /** names this delivery's calls: `<run>:<attempt>:<call>` is each call's idempotency key */
  runId: string;
  emit: (event: RunEventBody) => void;
  signal: AbortSignal;
  limits: LoopLimits;
  subagents?: { call(callId: string, args: ToolArgs["run_subagent"], signal: AbortSignal): Promise<ToolResult> } | undefined;
}

/** One answer's tool calls, run: the tool messages in the model's order, and the call the turn stopped at, if one waits. */
export interface ToolRound {
  toolMessages: ChatCompletionMessageParam[];
  paused?: PausedCall;
  anyValid: boolean;
}

/** What becomes of one call in a round: run (with the decision the model is told of), answered without running, or left waiting. */
type Ready = { kind: "run"; args: Record<string, unknown>; key: string; decided?: CallDecision } | { kind: "answer"; result: ToolResult };
type Plan = Ready | { kind: "wait"; reason: string };

/**
 * Runs one model answer's tool calls (docs/design.md "The agentic loop"; docs/approvals.md "Policies"): each valid
 * call goes as its verdict says (prepared-call.ts asked the gate); allowed ones run (at most `toolConcurrency` at a time), denied ones are answered with
 * TOOL_CALL_DENIED, invalid ones with their error. At the first call that must wait, the round stops: the calls
 * before it are run and answered, it and the calls after it are left for the resumed turn. `decision` is how the
 * call a resumed turn stopped at was decided: approved (with a member's arguments, which the model is told of), or
 * rejected (TOOL_CALL_REJECTED with the member's words).
 */
export async function runToolRound(input: RoundInput, prepared: readonly PreparedCall[], decision?: CallDecision): Promise<ToolRound> {
  const plans = prepared.map((call) => planCall(input, call, decision));
  const stop = plans.findIndex((plan) => plan.kind === "wait");
  const ran = stop === -1 ? prepared : prepared.slice(0, stop);
  const results = await mapWithConcurrency(ran, input.limits.toolConcurrency, (call, index) => executeToolCall(input, call, plans[index] as Ready));
  const toolMessages: ChatCompletionMessageParam[] = ran.map((call, index) => ({
    role: "tool",
    tool_call_id: call.id,
    content: truncateMiddle(JSON.stringify(results[index]), input.limits.toolResultMaxChars),
  }));
  const anyValid = prepared.some((call) => call.valid);
  const waiting = stop === -1 ? undefined : prepared[stop];
  const plan = stop === -1 ? undefined : plans[stop];
  if (!waiting?.valid || plan?.kind !== "wait") return { toolMessages, anyValid };
  return { toolMessages, anyValid, paused: { id: waiting.id, name: waiting.name, args: waiting.args, reason: plan.reason } };
}

/**
 * The calls a resumed turn must still answer when its pending call expired or its chat was cancelled: each is
 * answered with a tool error saying it was not run, so the conversation the chat keeps stays one a model accepts.
 */
export function unansweredCalls(input: Pick<RoundInput, "emit">, prepared: readonly PreparedCall[], error: AppError): ChatCompletionMessageParam[] {
  return prepared.map((call) => {
    input.emit({ type: "tool_result", call_id: call.id, name: call.name, success: false, error_code: error.code, duration_ms: 0 });
    return { role: "tool", tool_call_id: call.id, content: JSON.stringify({ success: false, error: { code: error.code, message: `Not run: ${error.message}` } }) };
  });
}

function planCall(input: RoundInput, call: PreparedCall, decision: CallDecision | undefined): Plan {
  if (!call.valid) return { kind: "answer", result: call.error };
  const key = `${input.runId}:${call.id}`;
  if (decision?.callId === call.id) return decided(call, decision);
  const { verdict } = call;
  if (verdict.policy === "allow") return { kind: "run", args: call.args, key };
  if (verdict.policy === "ask") return { kind: "wait", reason: verdict.reason };
  return {
    kind: "answer",
    result: { success: false, error: { code: "TOOL_CALL_DENIED", message: `This call was not run: ${verdict.reason}. The project's approval settings refuse it; do without it or ask the user.` } },
  };
}

/** The call a member decided: approved as the model made it or with their arguments (checked again), or rejected. */
function decided(call: Extract<PreparedCall, { valid: true }>, decision: CallDecision): Plan {
  const by = decision.by ?? "A member";
  if (decision.outcome === "reject") {
    const said = decision.message ? `: ${decision.message}` : " (no reason given)";
    return { kind: "answer", result: { success: false, error: { code: "TOOL_CALL_REJECTED", message: `${by} rejected this call, so it was not run${said}` } } };
  }
  if (decision.arguments === undefined) return { kind: "run", args: call.args, key: decision.callKey, decided: decision };
  const checked = toolCatalog[call.name].args.safeParse(decision.arguments);
  if (!checked.success) {
    return { kind: "answer", result: { success: false, error: { code: "INVALID_TOOL_CALL", message: `${by} approved this call with arguments the tool refuses; it was not run` } } };
  }
  return { kind: "run", args: checked.data as Record<string, unknown>, key: decision.callKey, decided: { ...decision, arguments: checked.data as Record<string, unknown> } };
}

async function executeToolCall(input: RoundInput, call: PreparedCall, plan: Ready): Promise<ToolResult> {
  const args = plan.kind === "run" ? plan.args : call.args;
  input.emit({ type: "tool_call", call_id: call.id, name: call.name, arguments: args });
  const started = performance.now();
  const result =
    plan.kind === "answer"
      ? plan.result
      : call.name === "run_subagent" && input.subagents
        ? await input.subagents.call(call.id, args as ToolArgs["run_subagent"], input.signal)
        : await input.tools.call(call.name as ToolName, plan.key, input.context, args, input.signal);
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
  return plan.kind === "run" && plan.decided ? withApprovalNote(result, plan.decided) : result;
}

/** The model is told when a member changed its call before approving it, and what they said. */
function withApprovalNote(result: ToolResult, decision: CallDecision): ToolResult {
  const by = decision.by ?? "A member";
  return {
    ...result,
    ...(decision.arguments === undefined
      ? {}
      : { approval: `${by} changed this call's arguments before approving it; it ran with arguments_run, not with yours`, arguments_run: decision.arguments }),
    ...(decision.message ? { approval_message: decision.message } : {}),
  };
}
