import { joinAnswerTexts, SessionListReply, subjects, type VisibleMessage } from "@agent-orchestrator/shared/wire";
import { conversationEnvelope } from "./conversation-envelope.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { getSessionView } from "../sessions/session-view.js";
import type { ClientConversation } from "./openai-conversation.js";

/** Sessions whose title fits are read one by one; past this many the request starts a new session. */
const maxCandidates = 20;
/** The session list's `title` is the first user message cut to this length. */
const titleLength = 80;

type Earlier = Pick<ClientConversation, "instructions" | "earlier">;

/**
 * The session of `owner` with agent `agentId` that holds exactly the client's earlier conversation, if
 * any: how a stateless OpenAI client's next request finds its session again. Only the owner's own chats
 * count (other members' chats of a shared project are theirs to continue), in `projectId` when the client
 * names one. Newest first; a running session is skipped (it is about to hold more). Sessions live in the
 * orchestrator's KV bucket, so this works on any gateway replica and after restarts.
 */
export async function findSessionHolding(
  context: GatewayContext,
  owner: string,
  agentId: string,
  conversation: Earlier,
  projectId?: string,
): Promise<string | undefined> {
  if (conversation.earlier.length === 0) return undefined;
  const titles = new Set(firstMessageCandidates(conversation).map((text) => text.slice(0, titleLength)));
  const { sessions } = await callService(context, subjects.sessionList, { user: owner, project_id: projectId }, SessionListReply);
  const candidates = sessions.filter(
    (session) => session.owner === owner && session.agent_id === agentId && session.status !== "running" && titles.has(session.title),
  );
  for (const candidate of candidates.slice(0, maxCandidates)) {
    const session = await getSessionView(context, candidate.id, owner);
    if (holdsConversation(session.messages, conversation)) return session.id;
  }
  return undefined;
}

/**
 * Whether a session's visible messages are exactly the client's earlier conversation. The session's first
 * message may be an envelope that carried the client's instructions and an older transcript (a session
 * that `/v1` started from a history no session held); every later turn is one user message and the
 * agent's answer, which the client may hold as all of the turn's texts joined (the answer every door gives) or as the
 * final one alone. Whitespace at the ends is not significant (clients trim).
 */
export function holdsConversation(sessionMessages: readonly VisibleMessage[], conversation: Earlier): boolean {
  const turns = sessionTurns(sessionMessages);
  const { earlier, instructions } = conversation;
  const first = turns[0];
  if (!first) return false;
  for (const [start, opening] of earlier.entries()) {
    if (opening.role !== "user" || !same(first.user, conversationEnvelope(instructions, earlier.slice(0, start), opening.content))) continue;
    const rest = earlier.slice(start);
    if (rest.length !== turns.length * 2) continue;
    const aligned = turns.every((turn, index) => {
      const user = rest[index * 2];
      const answer = rest[index * 2 + 1];
      return user?.role === "user" && (index === 0 || same(turn.user, user.content)) && answer?.role === "assistant" && answerMatches(turn.answers, answer.content);
    });
    if (aligned) return true;
  }
  return false;
}

/** What the session's first user message would be for each place the client's history could have started. */
function firstMessageCandidates({ earlier, instructions }: Earlier): string[] {
  const candidates: string[] = [];
  for (const [start, opening] of earlier.entries()) {
    if (opening.role === "user") candidates.push(conversationEnvelope(instructions, earlier.slice(0, start), opening.content));
  }
  return candidates;
}

interface SessionTurn {
  user: string;
  answers: string[];
}

function sessionTurns(messages: readonly VisibleMessage[]): SessionTurn[] {
  const turns: SessionTurn[] = [];
  for (const message of messages) {
    if (message.role === "user") turns.push({ user: message.content, answers: [] });
    else turns.at(-1)?.answers.push(message.content);
  }
  return turns;
}

function answerMatches(answers: readonly string[], text: string): boolean {
  if (answers.length === 0) return false;
  return same(joinAnswerTexts(answers), text) || same(answers.at(-1) ?? "", text);
}

const same = (a: string, b: string): boolean => a.trim() === b.trim();
