import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { subjectTokenPattern } from "../subjects.js";
import { ApprovalDeciders } from "../settings/approvals-settings.js";
import { ApprovalDecision, ApprovalOutcome, ApprovalStatus, approvalIdSchema, maxDecisionMessageChars, ToolArguments } from "./approval-record.js";

const user = z.string().min(1).max(128);
const sessionId = z.string().regex(subjectTokenPattern);

/**
 * A pending (or just decided) call as a client sees it: long argument strings cut to a preview that names their full
 * length (`arguments_truncated`), as on `tool_call` events; `may_decide` says whether the caller may decide it.
 */
export const ApprovalView = z.object({
  approval_id: z.string(),
  session_id: z.string(),
  project_id: z.string(),
  agent_id: z.string(),
  call_id: z.string(),
  tool: z.string(),
  arguments: ToolArguments,
  arguments_truncated: z.boolean().optional(),
  reason: z.string(),
  requester: z.string(),
  deciders: ApprovalDeciders,
  created_at: z.string(),
  expires_at: z.string(),
  status: ApprovalStatus,
  /** how it ended, once it has: the outcome, who, when; `arguments_edited` when a member changed the arguments */
  decided: z
    .object({ outcome: ApprovalOutcome, by: z.string().optional(), at: z.string(), arguments_edited: z.boolean().optional(), message: z.string().optional() })
    .optional(),
  may_decide: z.boolean(),
});
export type ApprovalView = z.infer<typeof ApprovalView>;

/**
 * gateway → orchestrator on `agent.approval.list`: with `session_id`, that chat's pending calls (any member of its
 * project may read them); without, every pending call the caller may decide, across their projects.
 */
export const ApprovalListRequest = z.object({ user, session_id: sessionId.optional() });
export type ApprovalListRequest = z.infer<typeof ApprovalListRequest>;

export const ApprovalListReply = z.union([z.object({ success: z.literal(true), approvals: z.array(ApprovalView) }), ErrorReply]);
export type ApprovalListReply = z.infer<typeof ApprovalListReply>;

/**
 * `POST /api/sessions/:id/approvals/:approval_id` body: `approve` runs the call, with `arguments` in place of the
 * model's when given (the model is told they were changed); `reject` answers the model with a tool error carrying
 * `message`.
 */
export const ApprovalDecisionBody = z.strictObject({
  decision: ApprovalDecision,
  arguments: ToolArguments.optional(),
  message: z.string().trim().min(1).max(maxDecisionMessageChars).optional(),
});
export type ApprovalDecisionBody = z.infer<typeof ApprovalDecisionBody>;

/**
 * gateway → orchestrator on `agent.approval.decide`: a member's decision on one pending call of one chat, and the
 * address it came from for the audit record.
 */
export const ApprovalDecideRequest = ApprovalDecisionBody.extend({
  user,
  session_id: sessionId,
  approval_id: approvalIdSchema,
  client_address: z.string().max(256).optional(),
});
export type ApprovalDecideRequest = z.infer<typeof ApprovalDecideRequest>;

export const ApprovalDecideReply = z.union([z.object({ success: z.literal(true), approval: ApprovalView }), ErrorReply]);
export type ApprovalDecideReply = z.infer<typeof ApprovalDecideReply>;

/** A call that waits, as a door that stops at the pause shows it: the `approval_required` event's fields. */
export const PendingCall = z.object({
  approval_id: z.string(),
  call_id: z.string(),
  tool: z.string(),
  arguments: ToolArguments,
  arguments_truncated: z.boolean().optional(),
  reason: z.string(),
  expires_at: z.string(),
});
export type PendingCall = z.infer<typeof PendingCall>;

/**
 * `POST /api/chat`'s JSON answer, status 202, for a turn that paused at a call waiting for a member's decision: the
 * text the turn said before it paused, and the call; the turn's result comes to whoever watches the chat once it is
 * decided (docs/approvals.md "Every door").
 */
export const ChatAwaitingApprovalReply = z.object({
  success: z.literal(true),
  session_id: z.string(),
  project_id: z.string(),
  status: z.literal("awaiting_approval"),
  response: z.string(),
  approvals: z.array(PendingCall),
});
export type ChatAwaitingApprovalReply = z.infer<typeof ChatAwaitingApprovalReply>;
