import { z } from "zod";
import { AttachedFiles } from "./chat-attachment.js";
import { CompactionPoint } from "./compaction.js";
import { ErrorReply } from "./error-code.js";
import { SessionStatus } from "./session-record.js";
import { subjectTokenPattern } from "./subjects.js";
import { Usage } from "./usage.js";

const sessionId = z.string().regex(subjectTokenPattern);
const user = z.string().min(1).max(128);

/** A session as listed: no conversation. */
export const SessionSummary = z.object({
  id: z.string(),
  agent_id: z.string(),
  /** the project the chat belongs to */
  project_id: z.string(),
  /** the member whose chat it is: only they run its turns; the project's other members read and watch it */
  owner: z.string(),
  /**
   * the branch the chat works on in its project's git repository (docs/repositories.md "Branches and working trees"):
   * from the orchestrator, the one it was started on if any; the gateway shows it, or `chat/<id>`, only when the
   * project has a repository
   */
  branch: z.string().optional(),
  status: SessionStatus,
  run_id: z.string().nullable(),
  /** when the running turn started (a watcher replays events from there) */
  run_started_at: z.string().nullable(),
  last_run_id: z.string().nullable(),
  turns: z.number().int(),
  usage: Usage,
  /** the first user message, cut short, to recognise the session by */
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** A message the user can see: what they said and what the agent answered (no system or tool messages). */
export const VisibleMessage = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  /** on a user message: the files attached to it (project-relative paths), to show beside the text */
  attachments: AttachedFiles.optional(),
});
export type VisibleMessage = z.infer<typeof VisibleMessage>;

/**
 * A chat as one reads it: its visible messages and what it did, found in its tool calls when it is served
 * (not kept in the head, so the list does not carry them).
 */
export const SessionView = SessionSummary.extend({
  messages: z.array(VisibleMessage),
  /** the workflows and skills it ran, in order, once each: `preload_workflow`'s workflow path, `load_skill`'s skill name */
  workflows: z.array(z.string()),
  /** the files its `save_output`, `edit_file` and `run_script` calls wrote, once each, by the virtual paths the model saw */
  files_written: z.array(z.string()),
  /**
   * where the chat was compacted for its model (docs/models.md "Compaction"), in order: each before the visible
   * message of its `message_index` (one past the last: after them all). The messages themselves are all kept
   */
  compactions: z.array(CompactionPoint).optional(),
});
export type SessionView = z.infer<typeof SessionView>;

/** The chats `user` may see: their own and those of projects they are a member of; one project's with `project_id`. */
export const SessionListRequest = z.object({ user, project_id: z.string().regex(subjectTokenPattern).optional() });
export const SessionListReply = z.union([z.object({ success: z.literal(true), sessions: z.array(SessionSummary) }), ErrorReply]);
export type SessionListReply = z.infer<typeof SessionListReply>;

/**
 * One page of a session's view: its state and its visible messages from `message_offset`. A long
 * conversation takes several pages, each within one NATS message; `next_message_offset` is where the next
 * page starts (null or absent on the last).
 */
export const SessionGetRequest = z.object({ session_id: sessionId, user, message_offset: z.number().int().nonnegative().optional() });
export const SessionGetReply = z.union([
  z.object({ success: z.literal(true), session: SessionView, next_message_offset: z.number().int().positive().nullable().optional() }),
  ErrorReply,
]);
export type SessionGetReply = z.infer<typeof SessionGetReply>;

/** Broadcast on `agent.run.cancel.<session>`; only the orchestrator running the turn acts on it. */
/** gateway → every orchestrator: stop the chat's running turn, or reject its calls waiting for a decision (`by`: who cancelled). */
export const RunCancel = z.object({ session_id: sessionId, run_id: z.string().regex(subjectTokenPattern).optional(), by: z.string().min(1).max(128).optional() });
export type RunCancel = z.infer<typeof RunCancel>;
