import type { Service } from "nats";
import { addJsonEndpoint, AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import {
  SessionDeleteRequest,
  SessionGetRequest,
  SessionListRequest,
  SessionRenameRequest,
  SessionSearchRequest,
  subjects,
  type SessionHead,
  type SessionRecord,
  type VisibleMessage,
} from "@agent-orchestrator/shared/wire";
import { prefixWithinBytes } from "../events/bounded-event.js";
import { retryOnConflict } from "../nats/compare-and-set.js";
import { projectOfMember } from "../projects/project-access.js";
import type { ProjectStore } from "../projects/project-store.js";
import { managedChat, visibleChat } from "../sessions/chat-access.js";
import { chatActivity } from "../sessions/chat-activity.js";
import { compactionPoints } from "../sessions/compaction-points.js";
import { deleteChat, type ChatDeletionDeps } from "../sessions/chat-deletion.js";
import { searchChats } from "../sessions/chat-search.js";
import { toSummary } from "../sessions/session-summary.js";
import type { SessionStore } from "../sessions/session-store.js";
import { visibleMessages } from "../sessions/visible-messages.js";

/**
 * `agent.session.<list|get|search|rename|delete>`: the chats a user may see, their own and those of every project
 * they are a member of, found by text in one project; renamed or deleted by their owner or their project's owner.
 * Anyone else's answer exactly like missing ones.
 */
export function addSessionEndpoints(service: Service, deps: ChatDeletionDeps, logger: Logger, pageBytes: () => number): void {
  const { sessions, subjectPrefix } = deps;
  addJsonEndpoint(
    service,
    "session-list",
    subjectPrefix + subjects.sessionList,
    SessionListRequest,
    async ({ user, project_id }) => ({ success: true, sessions: (await visibleChats(deps, user, project_id)).map(toSummary) }),
    logger,
  );
  addJsonEndpoint(
    service,
    "session-get",
    subjectPrefix + subjects.sessionGet,
    SessionGetRequest,
    async ({ session_id, user, message_offset }) => {
      const chat = await visibleChat(deps, session_id, user);
      const stored = await sessions.get(session_id, chat.owner);
      if (!stored) throw new AppError("SESSION_NOT_FOUND", "Session not found");
      const title = (await sessions.explicitTitle(chat.project.id, session_id)) ?? (stored.version.title || titleOf(stored.record));
      const activity = { ...chatActivity(stored.record.messages), compactions: compactionPoints(stored.record.messages) };
      // the activity travels in every page: the messages get what is left
      const page = viewPage(visibleMessages(stored.record), message_offset ?? 0, pageBytes() - Buffer.byteLength(JSON.stringify(activity)));
      return { success: true, session: { ...toSummary({ ...stored.record, title }), ...activity, messages: page.messages }, next_message_offset: page.next };
    },
    logger,
  );
  addJsonEndpoint(
    service,
    "session-search",
    subjectPrefix + subjects.sessionSearch,
    SessionSearchRequest,
    async ({ user, project_id, query }) => ({ success: true, sessions: await searchChats(deps, user, project_id, query) }),
    logger,
  );
  addJsonEndpoint(
    service,
    "session-rename",
    subjectPrefix + subjects.sessionRename,
    SessionRenameRequest,
    async ({ session_id, user, title }) => {
      const chat = await managedChat(deps, session_id, user, "rename it");
      await retryOnConflict(() => sessions.retitle(chat.project.id, session_id, title));
      const state = await sessions.getState(session_id, chat.owner);
      if (!state) throw new AppError("SESSION_NOT_FOUND", "Session not found");
      return { success: true, session: toSummary({ ...state, title }) };
    },
    logger,
  );
  addJsonEndpoint(
    service,
    "session-delete",
    subjectPrefix + subjects.sessionDelete,
    SessionDeleteRequest,
    async ({ session_id, user }) => {
      await deleteChat(deps, session_id, user);
      return { success: true };
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
  // the caller's projects only, through the index (docs/projects.md "Storage"); the personal one is read, not made
  const personal = await projects.personalOf(user);
  const memberOf = [...(personal ? [personal] : []), ...(await projects.memberProjects(user))];
  const member = new Set(memberOf.map((record) => record.id));
  const chats = new Map<string, SessionHead>();
  // whether the project of one of their own chats still exists, read once per project
  const existing = new Map<string, boolean>();
  for (const head of await sessions.listByOwner(user, Number.MAX_SAFE_INTEGER)) {
    if (head.project_id === undefined || member.has(head.project_id)) continue;
    if (!existing.has(head.project_id)) existing.set(head.project_id, (await projects.get(head.project_id)) !== undefined);
    if (!existing.get(head.project_id)) continue;
    // their own chat in a project they have left: the title they gave it is read here, the project listings carry the others'
    chats.set(head.id, { ...head, title: (await sessions.explicitTitle(head.project_id, head.id)) ?? head.title });
  }
  for (const record of memberOf) {
    for (const { head } of await sessions.listByProject(record.id)) chats.set(head.id, head);
  }
  return newestFirst([...chats.values()]);
}

const newestFirst = (heads: SessionHead[]): SessionHead[] => heads.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, listLimit);

const titleOf = (record: SessionRecord): string => visibleMessages(record).find((message) => message.role === "user")?.content.slice(0, 80) ?? "";

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
