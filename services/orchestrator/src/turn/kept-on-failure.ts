import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { AppError, type ConversationMessage, type SessionRecord } from "@agent-orchestrator/shared";

/**
 * The session a failed turn saves. Most failures leave the conversation as it was (the client is told to
 * send the message again). An answer cut at its size limit (MODEL_OUTPUT_TOO_LARGE) is kept instead: the
 * user's message and what the turn added, ending with the answer up to the cut and its note, which is exactly
 * the text the client was sent. So the client and the model see one history, and the next turn knows the
 * answer was cut (docs/design.md "Limits of a turn").
 */
export function keptOnFailure(error: unknown, session: SessionRecord, userMessage: ConversationMessage, added: readonly ChatCompletionMessageParam[]): SessionRecord {
  if (!AppError.is(error) || error.code !== "MODEL_OUTPUT_TOO_LARGE" || added.length === 0) return session;
  return {
    ...session,
    messages: [...session.messages, userMessage, ...added] as SessionRecord["messages"],
    turns: session.turns + 1,
  };
}
