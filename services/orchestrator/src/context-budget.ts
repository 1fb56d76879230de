import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { orchestratorMetrics } from "./orchestrator-metrics.js";

/** Rough token count of a conversation: about four characters a token, enough to stay under a budget. */
export function estimateTokens(messages: readonly ChatCompletionMessageParam[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

/** A tool result shorter than this is not worth replacing. */
const largeToolResultChars = 2_000;

/**
 * Keeps a conversation under `budgetTokens` by replacing the oldest large tool results with a short note
 * (the model can read the file again if it needs it). The system prompt and the latest user message are
 * never touched; nor is anything after that message (the current turn's own work). Returns a new array.
 */
export function fitContext(messages: readonly ChatCompletionMessageParam[], budgetTokens: number): ChatCompletionMessageParam[] {
  const fitted = [...messages];
  let total = estimateTokens(fitted);
  if (total <= budgetTokens) return fitted;
  const latestUser = fitted.map((message) => message.role).lastIndexOf("user");
  for (let index = 1; index < latestUser && total > budgetTokens; index++) {
    const message = fitted[index];
    if (message?.role !== "tool" || typeof message.content !== "string" || message.content.length < largeToolResultChars) continue;
    const note = `[This earlier tool result (${message.content.length} characters) was removed to save context; call the tool again if you need it.]`;
    total -= Math.floor((message.content.length - note.length) / 4);
    fitted[index] = { ...message, content: note };
    orchestratorMetrics.contextTrims.inc();
  }
  return fitted;
}
