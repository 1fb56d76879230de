import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { estimateTokens } from "../loop/context-budget.js";

/** Tokens besides the messages and tools: the note of the day (loop/conversation-note.ts) and the request's framing. */
const framingTokens = 64;

/** Each turn's tool definitions (one array for all its calls) as tokens, counted once. */
const counted = new WeakMap<object, number>();

/** A prompt's tokens besides its messages: the tool definitions (as JSON, four bytes a token) and the framing. */
export function fixedPromptTokens(tools: object): number {
  let tokens = counted.get(tools);
  if (tokens === undefined) {
    tokens = Math.ceil(Buffer.byteLength(JSON.stringify(tools), "utf8") / 4) + framingTokens;
    counted.set(tools, tokens);
  }
  return tokens;
}

/** How far a provider's count may move the estimate: tokens of code or of non-Latin text differ from four bytes. */
const ratioBounds = { least: 0.5, most: 3 };

/**
 * Counts a prompt's tokens as the provider will (docs/models.md "Context windows"): the provider's own count of
 * the last prompt sent, plus an estimate of the messages added since, when the new prompt starts with the last one
 * (every call of a chat between compactions). Otherwise (a first call, a compacted prompt) the estimate, scaled by
 * how far the provider's last count was from it.
 */
export class PromptCounter {
  private last: { messages: readonly ChatCompletionMessageParam[]; estimated: number; reported?: number } | undefined;
  private ratio = 1;

  /** Tokens of `messages` plus `fixedTokens` (the tool definitions, the note of the day), as the provider will count them. */
  count(messages: readonly ChatCompletionMessageParam[], fixedTokens: number): number {
    const { last } = this;
    if (last?.reported !== undefined && startsWith(messages, last.messages)) {
      return last.reported + Math.ceil(estimateTokens(messages.slice(last.messages.length)) * this.ratio);
    }
    return Math.ceil((estimateTokens(messages) + fixedTokens) * this.ratio);
  }

  /** How many of the provider's tokens one estimated token is, as far as its counts have shown. */
  get scale(): number {
    return this.ratio;
  }

  /** The prompt about to be sent, with the same `fixedTokens`. */
  sending(messages: readonly ChatCompletionMessageParam[], fixedTokens: number): void {
    this.last = { messages, estimated: estimateTokens(messages) + fixedTokens };
  }

  /** The provider's count of the prompt last sent (none from a server that reports no usage). */
  reported(promptTokens: number): void {
    if (!this.last || promptTokens <= 0) return;
    this.last.reported = promptTokens;
    this.ratio = Math.min(ratioBounds.most, Math.max(ratioBounds.least, promptTokens / Math.max(1, this.last.estimated)));
  }
}

/** Whether `messages` begins with every message of `prefix` (the same objects, or the same JSON). */
function startsWith(messages: readonly ChatCompletionMessageParam[], prefix: readonly ChatCompletionMessageParam[]): boolean {
  if (prefix.length > messages.length) return false;
  return prefix.every((message, index) => messages[index] === message || JSON.stringify(messages[index]) === JSON.stringify(message));
}
