import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type ConversationMessage, type SessionRecord } from "@agent-orchestrator/shared/wire";

/**
 * The session a failed turn saves. Most failures leave the conversation as it was (the client is told to
 * send the message again). Two keep what the turn did instead, the user's message and what the turn added:
 * - an answer cut at its size limit (MODEL_OUTPUT_TOO_LARGE), ending with the answer up to the cut and its note,
 *   which is exactly the text the client was sent. So the client and the model see one history, and the next
 *   turn knows the answer was cut (docs/design.md "Limits of a turn");
 * - a turn stopped at a model call past a budget (BUDGET_EXCEEDED), whose tool calls have already written files:
 *   the conversation keeps them, with a last note saying why the turn stopped, so the next turn (once the budget
 *   allows it) goes on from what was done (docs/models.md "Budgets").
 */
export function keptOnFailure(error: unknown, session: SessionRecord, userMessage: ConversationMessage, added: readonly ChatCompletionMessageParam[]): SessionRecord {
  if (!AppError.is(error) || added.length === 0) return session;
  if (error.code !== "MODEL_OUTPUT_TOO_LARGE" && error.code !== "BUDGET_EXCEEDED") return session;
  const note: ChatCompletionMessageParam[] = error.code === "BUDGET_EXCEEDED" ? [{ role: "assistant", content: `[The turn was stopped here: ${error.message}]` }] : [];
  return {
    ...session,
    messages: [...session.messages, userMessage, ...added, ...note] as SessionRecord["messages"],
    turns: session.turns + 1,
  };
}
