import { mapWithConcurrency, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { type SessionHead, type SessionMatch } from "@agent-orchestrator/shared/wire";
import { projectOfMember } from "../projects/project-access.js";
import type { ProjectStore } from "../projects/project-store.js";
import { matchSnippet, plainTextPattern } from "./match-snippet.js";
import { toSummary } from "./session-summary.js";
import type { SessionStore } from "./session-store.js";
import { visibleMessages } from "./visible-messages.js";

/** The newest chats of a project a search reads, at most: its work is bounded however many chats the project has. */
export const searchedChats = 200;
/** Conversations read at once. */
const readConcurrency = 4;

/**
 * The chats of `projectId` (which `user` must be a member of: PROJECT_NOT_FOUND otherwise, like a missing project)
 * whose title or visible messages (what the user typed and the agent's text answers; not tool calls or their
 * results) contain `query`, ignoring case, newest first, each with a snippet around its first hit. Only the
 * `searchedChats` newest chats are read; a chat whose title matches is not read at all.
 */
export async function searchChats(
  stores: { sessions: SessionStore; projects: ProjectStore },
  user: string,
  projectId: string,
  query: string,
): Promise<SessionMatch[]> {
  await projectOfMember(stores.projects, projectId, user);
  const pattern = plainTextPattern(query);
  const heads = (await retryWhileLeaderless(() => stores.sessions.listByProject(projectId)))
    .map(({ head }) => head)
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, searchedChats);
  const found = await mapWithConcurrency(heads, readConcurrency, async (head) => {
    const match = matchSnippet(head.title, pattern) ?? (await conversationMatch(stores.sessions, head, pattern));
    return match === undefined ? undefined : { ...toSummary(head), match };
  });
  return found.filter((chat): chat is SessionMatch => chat !== undefined);
}

async function conversationMatch(sessions: SessionStore, head: SessionHead, pattern: RegExp): Promise<string | undefined> {
  // a chat deleted since the listing has nothing left to match
  const stored = await retryWhileLeaderless(() => sessions.get(head.id, head.owner));
  if (!stored) return undefined;
  for (const message of visibleMessages(stored.record)) {
    const snippet = matchSnippet(message.content, pattern);
    if (snippet !== undefined) return snippet;
  }
  return undefined;
}
