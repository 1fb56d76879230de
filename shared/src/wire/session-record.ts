import { z } from "zod";
import { Usage } from "./usage.js";

/** `awaiting_approval`: the chat's turn is paused at a tool call that waits for a member's decision (docs/approvals.md) */
export const SessionStatus = z.enum(["idle", "running", "completed", "failed", "cancelled", "awaiting_approval"]);
export type SessionStatus = z.infer<typeof SessionStatus>;

/**
 * A chat-completions message as kept in the conversation (validated loosely: the model API is the judge). A
 * user message may also carry `attachments` (AttachedFile[]) beside its text as typed: they are the files the
 * model was told of, and every turn composes the two again (withAttachedFiles) before the model sees them.
 * Records written before attachments have none.
 */
export const ConversationMessage = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
});
export type ConversationMessage = z.infer<typeof ConversationMessage>;

/**
 * A whole session: its state and its conversation. This is also the shape sessions were stored in before
 * the conversation moved to keys of its own (one KV value each), which the store still reads and migrates.
 */
export const SessionRecord = z.object({
  id: z.string(),
  agent_id: z.string(),
  owner: z.string(),
  /** the project the chat belongs to; records written before projects have none and are moved to their owner's default project at start */
  project_id: z.string().optional(),
  /**
   * the branch a person started the chat on (docs/repositories.md "Branches and working trees"); absent: the chat's
   * own, `chat/<id>`, in a project with a git repository
   */
  branch: z.string().optional(),
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

/** One batch of conversation messages (what one save appended), stored in `chunks` KV values of its own. */
export const ConversationBatch = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/),
  chunks: z.number().int().positive(),
  messages: z.number().int().positive(),
});
export type ConversationBatch = z.infer<typeof ConversationBatch>;

/**
 * A session's head as stored in the `sessions` bucket under its owner's key (`owner.<owner>.<session>`),
 * written with compare-and-set: its state and where its conversation lies, never the conversation itself,
 * so the head stays small however long the conversation grows.
 */
export const SessionHead = SessionRecord.omit({ messages: true }).extend({
  /** the first user message, cut short, to recognise the session by */
  title: z.string(),
  /** the conversation's batches, in order */
  batches: z.array(ConversationBatch),
});
export type SessionHead = z.infer<typeof SessionHead>;
