import { z } from "zod";
import { Usage } from "./usage.js";

export const SessionStatus = z.enum(["idle", "running", "completed", "failed", "cancelled"]);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** A chat-completions message as kept in the conversation (validated loosely: the model API is the judge). */
export const ConversationMessage = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
});
export type ConversationMessage = z.infer<typeof ConversationMessage>;

/** A session as stored in the JetStream KV bucket `sessions`, written with compare-and-set. */
export const SessionRecord = z.object({
  id: z.string(),
  agent_id: z.string(),
  owner: z.string(),
  status: SessionStatus,
  /** the turn currently running, if any */
  run_id: z.string().nullable(),
  /** when the running turn started (ISO time): where a watcher's replay of the events stream begins */
  run_started_at: z.string().nullable(),
  /** the most recent turn, running or finished */
  last_run_id: z.string().nullable(),
  /** the conversation after the system prompt: user, assistant and tool messages */
  messages: z.array(ConversationMessage),
  usage: Usage,
  turns: z.number().int().nonnegative(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;
