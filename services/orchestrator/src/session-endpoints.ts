import type { Service } from "nats";
import {
  addJsonEndpoint,
  AppError,
  SessionGetRequest,
  SessionListRequest,
  subjects,
  type Logger,
  type SessionHead,
  type SessionRecord,
  type SessionSummary,
  type VisibleMessage,
} from "@agent-orchestrator/shared";
import { prefixWithinBytes } from "./bounded-event.js";
import type { SessionStore } from "./session-store.js";

/** `agent.session.list` and `agent.session.get`: a user's own sessions, never anyone else's. */
export function addSessionEndpoints(service: Service, store: SessionStore, logger: Logger, subjectPrefix: string, pageBytes: () => number): void {
  addJsonEndpoint(
    service,
    "session-list",
    subjectPrefix + subjects.sessionList,
    SessionListRequest,
    async ({ owner }) => ({ success: true, sessions: (await store.listByOwner(owner)).map(toSummary) }),
    logger,
  );
  addJsonEndpoint(
    service,
    "session-get",
    subjectPrefix + subjects.sessionGet,
    SessionGetRequest,
    async ({ session_id, owner, message_offset }) => {
      // someone else's session answers exactly like a missing one
      const stored = await store.get(session_id, owner);
      if (!stored) throw new AppError("SESSION_NOT_FOUND", "Session not found");
      const summary = toSummary({ ...stored.record, title: stored.version.title || titleOf(stored.record) });
      const page = viewPage(visibleMessages(stored.record), message_offset ?? 0, pageBytes());
      return { success: true, session: { ...summary, messages: page.messages }, next_message_offset: page.next };
    },
    logger,
  );
}

export function toSummary(head: Omit<SessionHead, "batches">): SessionSummary {
  return {
    id: head.id,
    agent_id: head.agent_id,
    status: head.status,
    run_id: head.run_id,
    run_started_at: head.run_started_at,
    last_run_id: head.last_run_id,
    turns: head.turns,
    usage: head.usage,
    title: head.title,
    created_at: head.created_at,
    updated_at: head.updated_at,
  };
}

const titleOf = (record: SessionRecord): string => visibleMessages(record).find((message) => message.role === "user")?.content.slice(0, 80) ?? "";

/** The conversation as a person sees it: their messages and the agent's text answers. */
export function visibleMessages(record: SessionRecord): VisibleMessage[] {
  const messages: VisibleMessage[] = [];
  for (const message of record.messages) {
    const content = message["content"];
    if ((message.role === "user" || message.role === "assistant") && typeof content === "string" && content !== "") {
      messages.push({ role: message.role, content });
    }
  }
  return messages;
}

/**
 * The messages from `offset` that fit `maxBytes` (always at least one, so paging moves on; a single
 * message larger than a page is cut with a marker) and where the next page starts.
 */
export function viewPage(messages: readonly VisibleMessage[], offset: number, maxBytes: number): { messages: VisibleMessage[]; next: number | null } {
  const page: VisibleMessage[] = [];
  let used = 0;
  let index = offset;
  for (; index < messages.length; index++) {
    const message = messages[index] as VisibleMessage;
    const size = Buffer.byteLength(JSON.stringify(message));
    if (page.length > 0 && used + size > maxBytes) break;
    page.push(size > maxBytes ? { ...message, content: `${prefixWithinBytes(message.content, Math.floor(maxBytes / 6))}\n[... cut: this message is too long to show]` } : message);
    used += size;
  }
  return { messages: page, next: index < messages.length ? index : null };
}
