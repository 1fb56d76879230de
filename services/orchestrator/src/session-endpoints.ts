import type { Service } from "nats";
import {
  addJsonEndpoint,
  AppError,
  SessionGetRequest,
  SessionListRequest,
  subjects,
  type Logger,
  type SessionRecord,
  type SessionSummary,
  type SessionView,
  type VisibleMessage,
} from "@agent-orchestrator/shared";
import type { SessionStore } from "./session-store.js";

/** `agent.session.list` and `agent.session.get`: a user's own sessions, never anyone else's. */
export function addSessionEndpoints(service: Service, store: SessionStore, logger: Logger, subjectPrefix: string): void {
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
    async ({ session_id, owner }) => {
      const stored = await store.get(session_id);
      // someone else's session answers exactly like a missing one
      if (!stored || stored.record.owner !== owner) throw new AppError("SESSION_NOT_FOUND", "Session not found");
      return { success: true, session: toView(stored.record) };
    },
    logger,
  );
}

export function toSummary(record: SessionRecord): SessionSummary {
  const firstUser = record.messages.find((message) => message.role === "user");
  const title = typeof firstUser?.["content"] === "string" ? firstUser["content"].slice(0, 80) : "";
  return {
    id: record.id,
    agent_id: record.agent_id,
    status: record.status,
    run_id: record.run_id,
    run_started_at: record.run_started_at,
    last_run_id: record.last_run_id,
    turns: record.turns,
    usage: record.usage,
    title,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The conversation as a person sees it: their messages and the agent's text answers. */
export function toView(record: SessionRecord): SessionView {
  const messages: VisibleMessage[] = [];
  for (const message of record.messages) {
    const content = message["content"];
    if ((message.role === "user" || message.role === "assistant") && typeof content === "string" && content !== "") {
      messages.push({ role: message.role, content });
    }
  }
  return { ...toSummary(record), messages };
}
