import { z } from "zod";
import { ErrorBody } from "./error-code.js";
import { Usage } from "./usage.js";
import { AgentModel } from "./model-routes.js";
import { compactionEventFields } from "./compaction.js";
import { ApprovalOutcome } from "./approvals/approval-record.js";

/**
 * On a subagent's delta, tool_call and tool_result events relayed on its parent's run: the parent's
 * run_subagent call id the event belongs under.
 */
const nested = { parent_call_id: z.string().optional() };

const base = {
  session_id: z.string(),
  run_id: z.string(),
  /** position of the event in its run, from 0; lets a client drop duplicates and notice gaps */
  seq: z.number().int().nonnegative(),
};

/**
 * Events of one turn. The SSE `event:` name and the WebSocket `type` are the same string.
 * Order within a run: session, then deltas and tool calls/results, then exactly one of done or error.
 */
export const RunEvent = z.discriminatedUnion("type", [
  z.object({
    ...base,
    type: z.literal("session"),
    agent_id: z.string(),
    /** the project the chat belongs to (how a client that named none learns its default project's id) */
    project_id: z.string().optional(),
    /** 1 normally; higher when the turn was restarted on another orchestrator after a crash (seq starts again at 0) */
    attempt: z.number().int().positive(),
    /** the model that answers this turn and the route that chose it (docs/models.md "Routes"; absent from older orchestrators) */
    model: AgentModel.optional(),
  }),
  z.object({ ...base, type: z.literal("delta"), text: z.string(), ...nested }),
  z.object({
    ...base,
    type: z.literal("tool_call"),
    call_id: z.string(),
    name: z.string(),
    /** the model's arguments; long strings are cut to a preview that names their full length */
    arguments: z.record(z.string(), z.unknown()),
    /** set when `arguments` is a preview (the tool got the whole arguments) */
    arguments_truncated: z.boolean().optional(),
    ...nested,
  }),
  z.object({
    ...base,
    type: z.literal("tool_result"),
    call_id: z.string(),
    name: z.string(),
    success: z.boolean(),
    error_code: z.string().optional(),
    /** the virtual path the tool worked on, when it has one */
    path: z.string().optional(),
    duration_ms: z.number().nonnegative(),
    ...nested,
  }),
  z.object({
    ...base,
    type: z.literal("approval_required"),
    /** the pending call's id: a member decides it (docs/approvals.md) */
    approval_id: z.string(),
    call_id: z.string(),
    /** the tool's name, as on tool_call */
    tool: z.string(),
    /** the model's arguments, previewed as on tool_call (the decision's `arguments` must be whole) */
    arguments: z.record(z.string(), z.unknown()),
    arguments_truncated: z.boolean().optional(),
    /** why it waits, in words a member reads */
    reason: z.string(),
    /** ISO time after which the call can no longer be decided and the turn ends */
    expires_at: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal("approval_decided"),
    approval_id: z.string(),
    /** approve or reject (a member), expire (nobody decided in time) or cancel (the chat was cancelled) */
    decision: ApprovalOutcome,
    /** the member who decided or cancelled; absent for an expiry */
    by: z.string().optional(),
    /** set when the member approved changed arguments */
    arguments_edited: z.boolean().optional(),
  }),
  /**
   * the chat was compacted before the model call that follows (docs/models.md "Compaction"): the prompt's tokens
   * before and after, its stage and why
   */
  z.object({ ...base, type: z.literal("compaction"), ...compactionEventFields, ...nested }),
  z.object({
    ...base,
    type: z.literal("done"),
    /** the turn's answer, as every door gives it: the text of each of its model calls (joinAnswerTexts) */
    response: z.string(),
    /** set when `response` was cut to fit a NATS message; the whole answer is in the session */
    response_truncated: z.boolean().optional(),
    iterations: z.number().int().nonnegative(),
    /** this turn's tokens, its subagents' included */
    usage: Usage,
    /** each model call's tokens, in order (this turn's own calls) */
    usage_by_call: z.array(Usage),
    /** each subagent's tokens, by the run_subagent call that started it (absent when none ran) */
    usage_by_subagent: z.array(z.object({ call_id: z.string(), usage: Usage })).optional(),
    /** the whole session's tokens so far, this turn included */
    session_usage: Usage,
    /** the model that answered and its route, as on `session` */
    model: AgentModel.optional(),
  }),
  z.object({
    ...base,
    type: z.literal("error"),
    error: ErrorBody,
    /**
     * the tokens the turn used before it failed, its subagents' included (absent when it was refused before its
     * first model call); a call cut off before the model reported its usage counts an estimate
     */
    usage: Usage.optional(),
    /** each model call's tokens, in order, as on `done` */
    usage_by_call: z.array(Usage).optional(),
    /** each subagent's tokens, as on `done` */
    usage_by_subagent: z.array(z.object({ call_id: z.string(), usage: Usage })).optional(),
    /** the whole session's tokens so far, this failed turn included */
    session_usage: Usage.optional(),
  }),
]);
export type RunEvent = z.infer<typeof RunEvent>;

/** Distributes Omit over the union so each event keeps its own fields. */
export type RunEventBody = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "session_id" | "run_id" | "seq"> : never) : never;

/**
 * A turn's answer from the texts of its model calls, in order: one paragraph break between calls (each but the
 * last ended in a tool round), none for a call that said nothing. `/v1` streams the same text, and a client that
 * sends it back is recognised by the session it came from.
 */
export const joinAnswerTexts = (texts: readonly string[]): string => texts.filter((text) => text !== "").join("\n\n");

/** A run ends with `done`, `error`, or `approval_required`: the turn paused, and a resumed run of it goes on (docs/approvals.md). */
export const isFinalEvent = (event: RunEvent): boolean => event.type === "done" || event.type === "error" || event.type === "approval_required";
