import { z } from "zod";
import { AttachedFiles } from "./chat-attachment.js";
import { ChatBranchName } from "./projects/ref-name.js";
import { CallerName } from "./settings/settings-messages.js";
import { subjectTokenPattern } from "./subjects.js";
import { RunResume } from "./approvals/run-resume.js";

/** Limits of one user message; the gateway and the orchestrator check the same numbers. */
export const maxUserMessageChars = 100_000;

/**
 * Set on a subagent's turn: the turn (and its tool call) that asked for it. Only orchestrators publish
 * such requests, on `agent.run.request.<session>.<parent run>` (subjects.runChildRequest), which NATS
 * permissions deny the gateway; the orchestrator runs a request with `parent` only from that subject.
 */
export const RunParent = z.object({
  session_id: z.string().regex(subjectTokenPattern),
  run_id: z.string().regex(subjectTokenPattern),
  /** the model's id of the run_subagent call, which the child's events are nested under */
  call_id: z.string().min(1).max(256),
  /** 1 for a child of a user's turn, 2 for a grandchild, … */
  depth: z.number().int().min(1).max(16),
  /**
   * the user's turn at the top of the family: while it runs, the session's head names it. A child taken
   * from the queue after that turn ended (cancelled, failed, timed out) is dropped unstarted. Absent in
   * requests queued before this field existed: the parent's run id then stands for it at depth 1.
   */
  root_run_id: z.string().regex(subjectTokenPattern).optional(),
});
export type RunParent = z.infer<typeof RunParent>;

/**
 * gateway → orchestrator through the `RUN_REQUESTS` work queue: run one turn of a chat. Refusals
 * (unknown agent, someone else's session, …) come back as the turn's `error` event. An orchestrator
 * also queues subagents' turns here (with `parent`), so any replica can run them.
 */
export const RunStartRequest = z.object({
  run_id: z.string().regex(subjectTokenPattern),
  session_id: z.string().regex(subjectTokenPattern),
  /** true when the gateway made the session id for this chat; false to continue an existing session */
  new_session: z.boolean(),
  agent_id: z.string().min(1).max(256),
  message: z.string().min(1).max(maxUserMessageChars),
  /** the user the gateway authenticated; a chat's turns are its owner's */
  owner: z.string().min(1).max(128),
  /**
   * the project a new chat belongs to (the owner's default project when absent); the owner must be its owner
   * or an editor. A continued chat stays in its own project: a different one here is refused.
   */
  project_id: z.string().regex(subjectTokenPattern).optional(),
  /**
   * the branch of the project's repository a new chat works on (docs/repositories.md "Branches and working trees");
   * absent: its own, `chat/<session id>`. A continued chat stays on its branch: a different one here is refused.
   */
  branch: ChatBranchName.optional(),
  /** epoch ms after which nobody waits for this turn any more: an orchestrator drops it unstarted */
  expires_at: z.number().int().positive(),
  /** a subagent's turn: its parent; such a turn has no session record of its own */
  parent: RunParent.optional(),
  /** a subagent's turn: the skill it runs, loaded for it before its first model call */
  skill: z.string().min(1).max(256).optional(),
  /**
   * files the user attached to `message`, checked and (inline ones) uploaded by the gateway: the model is told
   * their paths after the message (withAttachedFiles); the stored user message keeps them beside its text
   */
  attachments: AttachedFiles.optional(),
  /** the name the gateway knows the owner by: `user_name` when the owner set none (docs/settings.md) */
  caller_name: CallerName.optional(),
  /**
   * what a tool call whose policy is `ask` does (docs/approvals.md): `pause` (the default) stops the turn until a
   * member decides; `refuse` answers it as denied, for a door that cannot wait (`/v1`, MCP without elicitation)
   */
  approval_mode: z.enum(["pause", "refuse"]).optional(),
  /** a turn resumed after a tool call's decision, queued by an orchestrator on the resume subject only (run-resume.ts) */
  resume: RunResume.optional(),
});
export type RunStartRequest = z.infer<typeof RunStartRequest>;
