import { z } from "zod";
import { ErrorReply } from "./error-code.js";
import { subjectTokenPattern } from "./subjects.js";

/**
 * How a chat was compacted (docs/models.md "Compaction"): `tool_results` (old tool results became stubs that say
 * how to read them again) or `summary` (the older conversation became a hand-off summary).
 */
export const CompactionStage = z.enum(["tool_results", "summary"]);
export type CompactionStage = z.infer<typeof CompactionStage>;

/** Why: the prompt passed the threshold, the provider refused it as too long, or a member asked (`POST …/compact`). */
export const CompactionReason = z.enum(["threshold", "overflow", "manual"]);
export type CompactionReason = z.infer<typeof CompactionReason>;

/** What a compaction did: the prompt's tokens before and after it, and its stage. */
export const CompactionFigures = z.object({
  before_tokens: z.number().int().nonnegative(),
  after_tokens: z.number().int().nonnegative(),
  stage: CompactionStage,
});
export type CompactionFigures = z.infer<typeof CompactionFigures>;

/** The `compaction` event's own fields (shared/src/wire/run-event.ts). */
export const compactionEventFields = { ...CompactionFigures.shape, reason: CompactionReason };

/**
 * A compaction as the session's conversation keeps it: a message of its own at the point it happened, which the
 * model never reads as it is. Every later prompt is built from it: messages before `kept_from` (an index into
 * the stored conversation) are read as stubs (`tool_results`) or not at all, the marker's `content` standing in
 * their place (`summary`: the hand-off). The messages themselves stay, so the chat, its exports and the audit
 * keep everything.
 */
export const CompactionMarker = z.object({
  role: z.literal("system"),
  content: z.string(),
  compaction: CompactionFigures.extend({
    kept_from: z.number().int().nonnegative(),
    reason: CompactionReason,
    /** ISO time */
    at: z.string(),
  }),
});
export type CompactionMarker = z.infer<typeof CompactionMarker>;

/** Whether a stored message is a compaction marker. */
export const isCompactionMarker = (message: unknown): message is CompactionMarker =>
  typeof message === "object" && message !== null && "compaction" in message && CompactionMarker.safeParse(message).success;

/** Where a chat was compacted, as `GET /api/sessions/:id` shows it: before its `message_index`-th visible message. */
export const CompactionPoint = CompactionFigures.extend({
  message_index: z.number().int().nonnegative(),
  reason: CompactionReason,
  at: z.string(),
});
export type CompactionPoint = z.infer<typeof CompactionPoint>;

/** gateway → orchestrator (`agent.session.compact`): compact a chat now, for a member who may run its turns. */
export const SessionCompactRequest = z.object({
  session_id: z.string().regex(subjectTokenPattern),
  user: z.string().min(1).max(128),
});
export type SessionCompactRequest = z.infer<typeof SessionCompactRequest>;

export const SessionCompactReply = z.union([z.object({ success: z.literal(true), compaction: CompactionFigures }), ErrorReply]);
export type SessionCompactReply = z.infer<typeof SessionCompactReply>;
