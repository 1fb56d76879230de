import { z } from "zod";
import { subjectTokenPattern } from "../subjects.js";
import { ApprovalDeciders } from "../settings/approvals-settings.js";

/**
 * A tool call that waits for a member's decision (docs/approvals.md), as kept in the JetStream KV bucket `approvals`
 * under `approval.<session>.<approval id>`. It moves once, by compare-and-set, from `pending` to one of the ends; the
 * orchestrator that resumes the turn then marks it `resumed`, so a decision sent twice or a resume delivered twice
 * runs the call once.
 */
export const ApprovalStatus = z.enum(["pending", "approved", "rejected", "expired", "cancelled", "resumed"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/** What a member decides. */
export const ApprovalDecision = z.enum(["approve", "reject"]);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/** How a pending call ended: a member's decision, its expiry, or its chat cancelled. */
export const ApprovalOutcome = z.enum(["approve", "reject", "expire", "cancel"]);
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

export const approvalIdSchema = z.string().regex(subjectTokenPattern);

/** The most characters of a member's message to the model with a decision. */
export const maxDecisionMessageChars = 4_000;

/** The tool call's arguments: an object, as the model sent it (or as a member edited it). */
export const ToolArguments = z.record(z.string(), z.unknown());
export type ToolArguments = z.infer<typeof ToolArguments>;

/** The decision a pending call received. */
export const ApprovalDecided = z.object({
  outcome: ApprovalOutcome,
  /** the member who decided or cancelled; absent for an expiry */
  by: z.string().optional(),
  at: z.string(),
  /** the arguments a member approved in place of the model's (absent: the model's ran) */
  arguments: ToolArguments.optional(),
  /** a member's words to the model (a rejection's reason, or a note with an approval) */
  message: z.string().max(maxDecisionMessageChars).optional(),
});
export type ApprovalDecided = z.infer<typeof ApprovalDecided>;

/** What a paused turn had used before it paused: the resumed turn counts on from these (docs/approvals.md "Limits"). */
export const PausedTurnFigures = z.object({
  /** model calls made */
  iterations: z.number().int().nonnegative(),
  /** time it ran, without the wait */
  elapsed_ms: z.number().nonnegative(),
  /** the name the gateway knew the requester by (`user_name`'s default) */
  caller_name: z.string().optional(),
});
export type PausedTurnFigures = z.infer<typeof PausedTurnFigures>;

export const ApprovalRecord = z.object({
  approval_id: approvalIdSchema,
  session_id: z.string().regex(subjectTokenPattern),
  project_id: z.string().regex(subjectTokenPattern),
  /** the turn that paused: its run id */
  run_id: z.string().regex(subjectTokenPattern),
  agent_id: z.string(),
  /** the model's id of the call */
  call_id: z.string().min(1).max(256),
  tool: z.string().min(1).max(64),
  /** the whole arguments the model sent; the tool gets these, or a member's edit of them */
  arguments: ToolArguments,
  /** why it waits, in words a member reads ("run_command is set to ask in this project") */
  reason: z.string().max(1_024),
  /** the member whose turn it was */
  requester: z.string().min(1).max(128),
  /** who else may decide (the project's owner always may) */
  deciders: ApprovalDeciders,
  created_at: z.string(),
  /** ISO time after which it can no longer be decided and the turn ends (APPROVAL_EXPIRED) */
  expires_at: z.string(),
  status: ApprovalStatus,
  decided: ApprovalDecided.optional(),
  /** the paused turn's figures; absent on a record made outside a turn */
  turn: PausedTurnFigures.optional(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;
