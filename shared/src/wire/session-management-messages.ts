import { z } from "zod";
import { givenName } from "./bidi-format.js";
import { ErrorReply } from "./error-code.js";
import { SessionSummary } from "./session-messages.js";
import { subjectTokenPattern } from "./subjects.js";

const sessionId = z.string().regex(subjectTokenPattern);
const projectId = z.string().regex(subjectTokenPattern);
const user = z.string().min(1).max(128);

/** A title a person gives a chat: trimmed, 1–200 characters, no bidi format character. */
const SessionTitle = givenName(200);

/** What a search looks for (`q`): 1–200 characters, matched as plain text, ignoring case. */
const SessionSearchText = z.string().min(1).max(200);

/** `PATCH /api/sessions/:id`'s body. */
export const SessionTitleBody = z.object({ title: SessionTitle }).strict();

/** `GET /api/sessions`'s query: one project's chats, or with `q` those of them that contain it. */
export const SessionListQuery = z.object({ project_id: z.string().min(1).max(128).optional(), q: SessionSearchText.optional() });

/** Renames a chat: its owner or its project's owner; the title then replaces the automatic one (the first user message). */
export const SessionRenameRequest = z.object({ session_id: sessionId, user, title: SessionTitle });
export const SessionRenameReply = z.union([z.object({ success: z.literal(true), session: SessionSummary }), ErrorReply]);
export type SessionRenameReply = z.infer<typeof SessionRenameReply>;

/** Deletes a chat with its conversation and its scratch space: its owner or its project's owner, never while a turn runs. */
export const SessionDeleteRequest = z.object({ session_id: sessionId, user });
export const SessionDeleteReply = z.union([z.object({ success: z.literal(true) }), ErrorReply]);
export type SessionDeleteReply = z.infer<typeof SessionDeleteReply>;

/** The chats of one project `user` is a member of whose title or visible messages contain `query`. */
export const SessionSearchRequest = z.object({ user, project_id: projectId, query: SessionSearchText });

/** A chat found by a search, with the text around the first place it matched. */
export const SessionMatch = SessionSummary.extend({
  /** about 120 characters around the first hit, in the title or else in the first message that has it */
  match: z.string(),
});
export type SessionMatch = z.infer<typeof SessionMatch>;

export const SessionSearchReply = z.union([z.object({ success: z.literal(true), sessions: z.array(SessionMatch) }), ErrorReply]);
export type SessionSearchReply = z.infer<typeof SessionSearchReply>;
