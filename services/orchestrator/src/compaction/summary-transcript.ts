import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { truncateMiddle } from "../loop/truncate-middle.js";
import { indexToolCalls } from "./tool-call-index.js";

/** What of one tool result or message the summary's writer reads at most (characters). */
const resultChars = 1_500;
const messageChars = 6_000;
const argumentChars = 300;

/**
 * The older conversation as a plain transcript for the writer of the hand-off summary: who said what, which tools
 * were called with which arguments and what they answered, each cut to a readable length, and the whole cut to
 * `maxChars` (its start and its end kept: an earlier hand-off and the latest exchanges). Plain text, not messages:
 * the writer reads about the conversation, it does not continue it (nor call its tools).
 */
export function summaryTranscript(messages: readonly ChatCompletionMessageParam[], maxChars: number): string {
  const calls = indexToolCalls(messages);
  const lines: string[] = [];
  for (const message of messages) {
    const content = textOf(message.content);
    if (message.role === "user") lines.push(`USER: ${truncateMiddle(content, messageChars)}`);
    else if (message.role === "assistant") {
      if (content) lines.push(`AGENT: ${truncateMiddle(content, messageChars)}`);
      for (const call of message.tool_calls ?? []) {
        if (call.type === "function") lines.push(`AGENT CALLS ${call.function.name} ${truncateMiddle(JSON.stringify(calls.get(call.id)?.args ?? {}), argumentChars)}`);
      }
    } else if (message.role === "tool") lines.push(`RESULT: ${truncateMiddle(content, resultChars)}`);
  }
  return truncateMiddle(lines.join("\n\n"), maxChars);
}

function textOf(content: ChatCompletionMessageParam["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}
