import type { Service } from "nats";
import {
  addJsonEndpoint,
  AppError,
  AttachedFiles,
  SessionGetRequest,
  SessionListRequest,
  roleOf,
  subjects,
  type Logger,
  type SessionHead,
  type SessionRecord,
  type SessionSummary,
  type VisibleMessage,
} from "@agent-orchestrator/shared";
import { prefixWithinBytes } from "../events/bounded-event.js";
import { projectOfMember } from "../projects/project-access.js";
import type { ProjectStore } from "../projects/project-store.js";
import type { SessionStore } from "./session-store.js";

/**
 * `agent.session.list` and `agent.session.get`: the chats a user may see, their own and those of every project
 * they are a member of; anyone else's answer exactly like missing ones.
 */
export function addSessionEndpoints(
  service: Service,
  stores: { sessions: SessionStore; projects: ProjectStore },
  logger: Logger,
  subjectPrefix: string,
  pageBytes: () => number,
): void {
  const { sessions, projects } = stores;
  addJsonEndpoint(
    service,
    "session-list",
    subjectPrefix + subjects.sessionList,
    SessionListRequest,
    async ({ user, project_id }) => ({ success: true, sessions: (await visibleChats(stores, user, project_id)).map(toSummary) }),
    logger,
  );
  addJsonEndpoint(
    service,
    "session-get",
    subjectPrefix + subjects.sessionGet,
    SessionGetRequest,
    async ({ session_id, user, message_offset }) => {
      // a chat the user may not see answers exactly like a missing one
      const place = await sessions.locate(session_id);
      const project = place && (await projects.get(place.project_id));
      const allowed = project && (place.owner === user || roleOf(project.record, user) !== undefined);
      const stored = allowed ? await sessions.get(session_id, place.owner) : undefined;
      if (!stored) throw new AppError("SESSION_NOT_FOUND", "Session not found");
      const summary = toSummary({ ...stored.record, title: stored.version.title || titleOf(stored.record) });
      const page = viewPage(visibleMessages(stored.record), message_offset ?? 0, pageBytes());
      return { success: true, session: { ...summary, messages: page.messages }, next_message_offset: page.next };
    },
    logger,
  );
}

/** Most chats one list answers, newest first. */
const listLimit = 200;

/**
 * The chats `user` may see, newest first: their own (of projects that still exist) and every chat of the projects
 * they are a member of; only `projectId`'s when given, which must be a project they are a member of.
 */
async function visibleChats(stores: { sessions: SessionStore; projects: ProjectStore }, user: string, projectId: string | undefined): Promise<SessionHead[]> {
  const { sessions, projects } = stores;
  if (projectId !== undefined) {
    await projectOfMember(projects, projectId, user);
    return newestFirst((await sessions.listByProject(projectId)).map(({ head }) => head));
  }
  const all = await projects.all();
  const existing = new Set(all.map((record) => record.id));
  const chats = new Map<string, SessionHead>();
  for (const head of await sessions.listByOwner(user, Number.MAX_SAFE_INTEGER)) {
    if (head.project_id !== undefined && existing.has(head.project_id)) chats.set(head.id, head);
  }
  for (const record of all.filter((candidate) => roleOf(candidate, user) !== undefined)) {
    for (const { head } of await sessions.listByProject(record.id)) chats.set(head.id, head);
  }
  return newestFirst([...chats.values()]);
}

const newestFirst = (heads: SessionHead[]): SessionHead[] => heads.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, listLimit);

export function toSummary(head: Omit<SessionHead, "batches">): SessionSummary {
  return {
    id: head.id,
    agent_id: head.agent_id,
    // every listed chat has a project: heads written before projects are moved into one at start
    project_id: head.project_id ?? "",
    owner: head.owner,
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

/** The conversation as a person sees it: their messages (with the files attached to them) and the agent's text answers. */
export function visibleMessages(record: SessionRecord): VisibleMessage[] {
  const messages: VisibleMessage[] = [];
  for (const message of record.messages) {
    const content = message["content"];
    if ((message.role === "user" || message.role === "assistant") && typeof content === "string" && content !== "") {
      const attachments = message.role === "user" ? AttachedFiles.safeParse(message["attachments"]) : undefined;
      messages.push({ role: message.role, content, ...(attachments?.success && attachments.data.length > 0 ? { attachments: attachments.data } : {}) });
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
