import { z } from "zod";
import { Attachments } from "./chat-attachment.js";
import { ApprovalDecisionBody } from "./approvals/approval-messages.js";
import { approvalIdSchema } from "./approvals/approval-record.js";
import { MemberRole, newProjectName } from "./projects/project-record.js";
import { ChatBranchName } from "./projects/ref-name.js";
import { ActivationRequest } from "./registry-messages.js";
import { maxUserMessageChars } from "./run-messages.js";
import { subjectTokenPattern } from "./subjects.js";

/** POST /api/chat body. */
export const ChatRequestBody = z
  .object({
    agent_id: z.string().min(1).max(256),
    message: z.string().min(1).max(maxUserMessageChars),
    session_id: z.string().regex(subjectTokenPattern).optional(),
    /**
     * the project a new chat belongs to; absent or `default`: the caller's personal default project. A continued
     * chat stays in its own project (naming another is refused).
     */
    project_id: z.string().regex(subjectTokenPattern).optional(),
    /**
     * a new chat's branch in the project's git repository (docs/repositories.md "Branches and working trees"),
     * checked by git's rules and ours (never `chat/…`); absent: the chat's own, `chat/<session id>`
     */
    branch: ChatBranchName.optional(),
    /** keep the turn running when this client disconnects (default: a disconnect cancels it) */
    detach: z.boolean().optional(),
    /** files of the chat's project, or small inline files, whose paths the model is told in this message */
    attachments: Attachments.optional(),
  })
  .strict();
export type ChatRequestBody = z.infer<typeof ChatRequestBody>;

/** WebSocket messages from the client (`/ws`). Server → client messages are run events, plus `error`s without a run. */
export const WsClientMessage = z.discriminatedUnion("type", [
  /** a browser cannot set headers on a WebSocket: it may send its token as the first message instead */
  // up to 8 KiB: a provider's access token (a JWT, docs/sign-in.md) is often well over a kilobyte
  z.object({ type: z.literal("auth"), token: z.string().min(1).max(8192) }),
  z.object({
    type: z.literal("chat"),
    agent_id: ChatRequestBody.shape.agent_id,
    message: ChatRequestBody.shape.message,
    session_id: ChatRequestBody.shape.session_id,
    project_id: ChatRequestBody.shape.project_id,
    branch: ChatRequestBody.shape.branch,
    detach: ChatRequestBody.shape.detach,
    attachments: ChatRequestBody.shape.attachments,
  }),
  z.object({ type: z.literal("cancel"), session_id: z.string().regex(subjectTokenPattern) }),
  /** receive the session's running turn from its start, then every later turn, until the socket closes */
  z.object({ type: z.literal("watch"), session_id: z.string().regex(subjectTokenPattern) }),
  /** stop this socket's watches of the session (their slots count against WS_MAX_WATCHES_PER_SOCKET and _PER_USER) */
  z.object({ type: z.literal("unwatch"), session_id: z.string().regex(subjectTokenPattern) }),
  /** a decision on a pending tool call of the session (docs/approvals.md), answered and broadcast as `approval_decided` */
  z.object({ type: z.literal("approve"), session_id: z.string().regex(subjectTokenPattern), approval_id: approvalIdSchema, ...ApprovalDecisionBody.shape }),
]);
export type WsClientMessage = z.infer<typeof WsClientMessage>;

/**
 * `GET /api/agents/:id/activation?user_context=…`: the user's request, shown in the activation document
 * (docs/design.md "Activation documents"). `POST` to the same path takes the JSON body below, which may also set `{variables}`.
 */
export const ActivationQuery = ActivationRequest.pick({ user_context: true }).strict();
export type ActivationQuery = z.infer<typeof ActivationQuery>;

export const ActivationBody = ActivationRequest.omit({ agent_id: true }).strict();
export type ActivationBody = z.infer<typeof ActivationBody>;

/** `POST /api/projects` and `PATCH /api/projects/:id` body: the project's name. */
export const ProjectNameBody = z.object({ name: newProjectName }).strict();
export type ProjectNameBody = z.infer<typeof ProjectNameBody>;

/** `PUT /api/projects/:id/members/:user` body: the member's role (the owner stays the owner). */
export const ProjectMemberBody = z.object({ role: MemberRole }).strict();
export type ProjectMemberBody = z.infer<typeof ProjectMemberBody>;
