/*
 * Where each part of a chat lies in the `sessions` bucket (ARCHITECTURE.md "Where state lives"). Owners are
 * base64url in keys: KV keys allow few characters, and an owner's listing filters on its prefix.
 */

/** The key of a session's head: under its owner, so listing one owner's sessions reads only theirs (`headKey(owner, "*")`). */
export const headKey = (owner: string, sessionId: string): string => `owner.${Buffer.from(owner, "utf8").toString("base64url")}.${sessionId}`;

/** The filter of every head, of every owner. */
export const everyHeadFilter = "owner.*.*";

/** One chunk of one batch of a session's conversation (conversation-chunks.ts). */
export const chunkKey = (sessionId: string, batchId: string, index: number): string => `conversation.${sessionId}.${batchId}.${index}`;

/** Where a session is, by its id alone: its owner (so its head's key) and its project. Written once, before its head. */
export const chatKey = (sessionId: string): string => `chat.${sessionId}`;

/**
 * One key per chat of a project, so a project's chats are listed without reading anyone else's (`"*"` for every
 * chat). It also keeps the title a person gave the chat: outside the head, which every turn writes by
 * compare-and-set, so a rename never makes a running turn's save fail, and the listing of a project reads it anyway.
 */
export const projectChatKey = (projectId: string, sessionId: string): string => `project.${projectId}.${sessionId}`;
