import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { Span } from "@opentelemetry/api";
import type { AppError, Logger } from "@agent-orchestrator/shared/runtime";
import {
  type AgentDefinition,
  type ApprovalRecord,
  type ConversationMessage,
  type EffectiveApprovals,
  type RunEventBody,
  type RunParent,
  type RunStartRequest,
  type SessionRecord,
  type ToolContext,
  type ToolName,
} from "@agent-orchestrator/shared/wire";
import type { AgentRules } from "../agent/agent-rules.js";
import type { RunEventPublisher } from "../events/run-event-publisher.js";
import type { LoopLimits } from "../loop/loop-limits.js";
import type { StreamedToolCall } from "../loop/tool-call-accumulator.js";
import type { CallDecision } from "../loop/tool-gate.js";
import type { RoutedModel } from "../model/model-router.js";
import type { UsageMeter } from "../model/usage-meter.js";
import type { SessionVersion } from "../sessions/session-store.js";
import type { TurnBudget } from "../spending/budgets.js";
import type { DeliverySpending } from "../spending/delivery-spending.js";
import type { SubagentRunner } from "../subagents/subagent-runner.js";
import type { TurnPlace } from "./turn-place.js";

/** What differs between a user's turn and a subagent's when it opens. */
export interface TurnTerms {
  timeoutMs: number;
  /** the error that stops the turn at its deadline */
  timeoutError: () => AppError;
  limits: LoopLimits;
  /** gives the user's turn slot back (turn-entry.ts) */
  releaseSlot?: () => Promise<void>;
}

/** The one event a turn ends with (`done`, `error`, or `approval_required`): its finish makes it, its close publishes it (active-turns.ts). */
export type LastEvent = Extract<RunEventBody, { type: "done" | "error" | "approval_required" }>;

/** The session a user's turn holds while it runs: its head as marked running, and the version its end is saved over. */
export interface HeldSession {
  record: SessionRecord;
  version: SessionVersion;
}

/**
 * One turn, a user's or a subagent's, from its request to its final event: opened by `ActiveTurns.open`, filled in by
 * each phase in turn (admission, the session's hold, preparation, execution: the files of turn/), read by the
 * finish, which ends it however far it got. One object, so what a phase needs is where every phase put it.
 *
 * A turn paused for an approval (issue 39) is this state at the end of its execution: the request, the agent
 * and place admission found, the conversation the loop started from and what it added so far, and the tool call
 * that waits. Another replica resumes it by opening a turn for the same request, admitting it again (the route,
 * budgets and settings may have changed meanwhile), holding the session again, and executing from the stored
 * conversation instead of preparing a new one.
 */
export interface TurnState {
  readonly request: RunStartRequest;
  /** the work queue's count of this request's deliveries: more than 1 when this one takes over a dead orchestrator's */
  readonly attempt: number;
  /** a subagent's turn: the turn it works for. A subagent holds no session of its own (child-turn.ts) */
  readonly parent: RunParent | undefined;
  /** `<run id>:<attempt>`: names this delivery's model and tool calls and its spending, so a takeover's are its own */
  readonly delivery: string;
  readonly log: Logger;
  readonly startedAt: number;
  /** the turn's own span (queued-turn-span.ts): its end's attributes go there, not on the phase span current then */
  readonly span: Span | undefined;
  /** epoch ms when the turn is stopped: no subagent of it outlives it */
  readonly endsAt: number;
  readonly limits: LoopLimits;
  readonly events: RunEventPublisher;
  /** aborted by a cancel (active-turns.ts), by the deadline, or as the turn closes */
  readonly controller: AbortController;
  readonly deadline: NodeJS.Timeout;
  /** gives the user's turn slot back before the final event, so a message sent as soon as `done` is heard finds it free */
  readonly releaseSlot: (() => Promise<void>) | undefined;
  /** what the loop added, kept here as it comes, so that a turn that fails can keep it (kept-on-failure.ts) */
  readonly added: ChatCompletionMessageParam[];

  /**
   * a turn resumed after a tool call's decision (turn-resume.ts): the call's record, the calls of the answer it
   * stopped at that have no result yet, and the decision the first of them runs with
   */
  resumed?: ResumedCalls;

  // admission (turn-admission.ts)
  agent?: AgentDefinition;
  /** the agent file's menu handlers and rules, for a user's turn's system prompt (a subagent's prompt has none) */
  rules?: AgentRules;
  place?: TurnPlace;
  route?: RoutedModel;
  /** the compaction route, which writes the turn's hand-off summaries; without one the turn's own route writes them */
  summaries?: RoutedModel | undefined;
  budget?: TurnBudget | undefined;
  /**
   * each model call's cost goes into the totals of the turn's project and user as the call ends, its subagents'
   * calls by themselves (delivery-spending.ts), so the budgets, asked before each model call, see what every running
   * turn has spent
   */
  spending?: DeliverySpending;
  /** the route's model, the budgets asked before each call, every call's tokens kept whatever becomes of the turn */
  meter?: UsageMeter;
  /** what every tool call of the turn names: the chat, its project, its owner, its agent, the settings */
  context?: ToolContext;
  /** the project's approval policies over the defaults (docs/approvals.md) */
  approvals?: EffectiveApprovals;
  /** the project has a git repository: the model is offered `run_command` (docs/commands.md) */
  commands?: boolean;

  // a user's turn (turn-session.ts)
  session?: HeldSession;

  // preparation (turn-preparation.ts)
  toolNames?: readonly ToolName[];
  /** what the loop starts from: the system prompt, the conversation so far and the new message (or a subagent's task) */
  conversation?: ChatCompletionMessageParam[];
  /**
   * the user's message as the chat keeps it (attached-user-message.ts), saved with the turn's end; none in a resumed
   * turn, whose chat holds it already, nor in a subagent's, which has no chat of its own
   */
  userMessage?: ConversationMessage;
  /** its run_subagent calls; none at the depth limit */
  subagents?: SubagentRunner | undefined;
}

/** Where a resumed turn goes on from (turn-resume.ts). */
export interface ResumedCalls {
  record: ApprovalRecord;
  calls: StreamedToolCall[];
  decision: CallDecision;
}

export type AdmittedTurn = TurnState & Required<Pick<TurnState, "agent" | "place" | "route" | "spending" | "meter" | "context">>;
export type HeldTurn = AdmittedTurn & Required<Pick<TurnState, "session">>;
export type PreparedTurn = AdmittedTurn & Required<Pick<TurnState, "toolNames" | "conversation">>;
