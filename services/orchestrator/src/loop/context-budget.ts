import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { parseJson } from "@agent-orchestrator/shared/runtime";
import { orchestratorMetrics } from "../orchestrator-metrics.js";
import { truncateMiddle } from "./truncate-middle.js";

/**
 * Each message's bytes as UTF-8 JSON, measured once: a turn's messages are never changed once made (a shortened one
 * is a new object), and every model call counts the whole conversation again (compaction/window-guard.ts).
 */
const measured = new WeakMap<ChatCompletionMessageParam, number>();

function bytesOf(message: ChatCompletionMessageParam): number {
  let bytes = measured.get(message);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(message), "utf8");
    measured.set(message, bytes);
  }
  return bytes;
}

/**
 * Rough token count: about four bytes of UTF-8 JSON a token, enough to stay under a budget. Bytes, not
 * characters, so text in scripts of several bytes a character (where a token is about one character) is
 * not under-counted fourfold. The bytes are the array's JSON: its brackets, its messages and a comma between two.
 */
export function estimateTokens(messages: readonly ChatCompletionMessageParam[]): number {
  const bytes = messages.reduce((sum, message) => sum + bytesOf(message), 2 + Math.max(0, messages.length - 1));
  return Math.ceil(bytes / 4);
}

const messageTokens = (message: ChatCompletionMessageParam): number => Math.ceil((bytesOf(message) + 1) / 4);

/** A message shorter than this (characters) is not worth shortening. */
const largeChars = 2_000;
/** What is left of an earlier message that is shortened: its head and tail, with a marker. */
const shortenedChars = 1_000;
/** What is left of a long string in earlier tool-call arguments. */
const shortenedArgumentChars = 200;
/** The least a message cut as a last resort keeps. */
const lastResortChars = 1_024;

/**
 * Keeps a conversation within `budgetTokens` (docs/design.md "Limits of a turn"), so no prompt is sent past
 * the model's window whatever a message holds. Cheapest loss first, oldest first within each step:
 *
 * 1. earlier turns' large tool results become a short note (the model can read the file again);
 * 2. earlier turns' other large messages (user or assistant text, tool-call arguments) are cut to head and tail;
 * 3. earlier turns are dropped whole, oldest first, for one note saying so (pairs of calls and results stay whole);
 * 4. the current turn's earlier rounds are shortened like 1 and 2; its latest round (the results the model is
 *    about to read) is left;
 * 5. last resort: the latest round's arguments and results, the latest user message, then the system prompt
 *    are cut to what fits.
 *
 * The stored conversation is never changed: this only shapes what one model call is sent. Returns a new array.
 */
export function fitContext(messages: readonly ChatCompletionMessageParam[], budgetTokens: number): ChatCompletionMessageParam[] {
  const fitted = new Fitting(messages, budgetTokens);
  if (fitted.fits()) return [...messages];
  const latestUser = messages.map((message) => message.role).lastIndexOf("user");
  const latestRound = Math.max(latestUser + 1, messages.map((message) => message.role).lastIndexOf("assistant"));
  const earlier = range(1, latestUser);
  const currentEarlierRounds = range(latestUser + 1, latestRound);

  for (const index of earlier) fitted.shorten(index, noteForToolResult);
  for (const index of earlier) fitted.shorten(index, shortened);
  fitted.dropEarlierTurns(latestUser);
  for (const index of fitted.indexesOf(currentEarlierRounds)) fitted.shorten(index, noteForToolResult);
  for (const index of fitted.indexesOf(currentEarlierRounds)) fitted.shorten(index, shortened);
  fitted.lastResort();
  return fitted.result();
}

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_unused, index) => from + index);

/** The conversation being fitted, with each message's estimate kept up to date. */
class Fitting {
  private readonly messages: ChatCompletionMessageParam[];
  private sizes: number[];
  private total: number;
  /** how many messages `dropEarlierTurns` removed before the original index `latestUser` */
  private shift = 0;

  constructor(
    messages: readonly ChatCompletionMessageParam[],
    private readonly budgetTokens: number,
  ) {
    this.messages = [...messages];
    this.sizes = this.messages.map(messageTokens);
    this.total = this.sizes.reduce((sum, size) => sum + size, 0);
  }

  fits(): boolean {
    return this.total <= this.budgetTokens;
  }

  result(): ChatCompletionMessageParam[] {
    return this.messages;
  }

  /** Original indexes (after the latest user message) as they are now. */
  indexesOf(original: readonly number[]): number[] {
    return original.map((index) => index - this.shift);
  }

  /** Replaces one message by what `shorten` makes of it, while over the budget and when that is smaller. */
  shorten(index: number, shorten: (message: ChatCompletionMessageParam) => ChatCompletionMessageParam | undefined): void {
    const message = this.messages[index];
    if (this.fits() || !message) return;
    const replacement = shorten(message);
    if (!replacement) return;
    const size = messageTokens(replacement);
    if (size >= (this.sizes[index] ?? 0)) return;
    this.total += size - (this.sizes[index] ?? 0);
    this.messages[index] = replacement;
    this.sizes[index] = size;
    orchestratorMetrics.contextTrims.inc();
  }

  /**
   * Drops the oldest earlier turns (from a user message to the next) until the rest fits, and puts one note
   * in their place. Whole turns go, so no tool result is left without its call.
   */
  dropEarlierTurns(latestUser: number): void {
    if (this.fits() || latestUser <= 1) return;
    let end = 1;
    let freed = 0;
    const note = (count: number): ChatCompletionMessageParam => ({
      role: "user",
      content: `[The ${count} earliest messages of this conversation were removed to save context.]`,
    });
    while (end < latestUser && this.total - freed + messageTokens(note(end)) > this.budgetTokens) {
      // to the end of this turn: the next user message
      let next = end + 1;
      while (next < latestUser && this.messages[next]?.role !== "user") next++;
      for (let index = end; index < next; index++) freed += this.sizes[index] ?? 0;
      end = next;
    }
    const removed = end - 1;
    if (removed === 0) return;
    const replacement = note(removed);
    this.messages.splice(1, removed, replacement);
    this.sizes.splice(1, removed, messageTokens(replacement));
    this.total = this.total - freed + messageTokens(replacement);
    this.shift = removed - 1;
    orchestratorMetrics.contextTrims.inc(removed);
  }

  /**
   * What is left over the budget comes out of the latest round (its calls' arguments, then its results, largest
   * first), then the latest user message, then the system prompt, each cut to head and tail.
   */
  lastResort(): void {
    if (this.fits()) return;
    const latestUser = this.messages.map((message) => message.role).lastIndexOf("user");
    const tail = range(latestUser + 1, this.messages.length);
    for (const index of tail) this.shorten(index, compactArguments);
    const results = tail.filter((index) => this.messages[index]?.role === "tool").sort((a, b) => (this.sizes[b] ?? 0) - (this.sizes[a] ?? 0));
    for (const index of [...results, ...(latestUser > 0 ? [latestUser] : []), 0]) this.shorten(index, (message) => this.cutToFit(message));
  }

  /** The message's text cut by what the conversation is over the budget (at least to `lastResortChars`). */
  private cutToFit(message: ChatCompletionMessageParam): ChatCompletionMessageParam | undefined {
    if (typeof message.content !== "string") return undefined;
    // a token is estimated at four bytes, and a character is at least one byte: this many fewer characters frees enough
    const keep = Math.max(lastResortChars, message.content.length - (this.total - this.budgetTokens) * 4 - 128);
    return { ...message, content: truncateMiddle(message.content, keep) } as ChatCompletionMessageParam;
  }
}

/** A large tool result as a short note. */
function noteForToolResult(message: ChatCompletionMessageParam): ChatCompletionMessageParam | undefined {
  if (message.role !== "tool" || typeof message.content !== "string" || message.content.length < largeChars) return undefined;
  return { ...message, content: `[This earlier tool result (${message.content.length} characters) was removed to save context; call the tool again if you need it.]` };
}

/** A large user or assistant message cut to head and tail, and its tool calls' long argument strings too. */
function shortened(message: ChatCompletionMessageParam): ChatCompletionMessageParam | undefined {
  if (message.role === "tool") return noteForToolResult(message);
  if (message.role === "assistant") {
    const withArguments = compactArguments(message) ?? message;
    const content = withArguments.content;
    if (typeof content === "string" && content.length >= largeChars) return { ...withArguments, content: truncateMiddle(content, shortenedChars) } as ChatCompletionMessageParam;
    return withArguments === message ? undefined : withArguments;
  }
  if (message.role === "user" && typeof message.content === "string" && message.content.length >= largeChars) {
    return { ...message, content: truncateMiddle(message.content, shortenedChars) };
  }
  return undefined;
}

/**
 * An assistant message whose tool calls' long argument strings are cut to head and tail. The arguments stay a
 * JSON object (some servers parse them), so the model still sees which file it wrote, not all it wrote.
 */
function compactArguments(message: ChatCompletionMessageParam): ChatCompletionMessageParam | undefined {
  if (message.role !== "assistant" || !message.tool_calls?.some((call) => call.type === "function" && call.function.arguments.length >= largeChars)) return undefined;
  const tool_calls = message.tool_calls.map((call) => {
    if (call.type !== "function" || call.function.arguments.length < largeChars) return call;
    const parsed = parseJson(call.function.arguments);
    const compacted =
      parsed.ok && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value)
        ? Object.fromEntries(
            Object.entries(parsed.value).map(([key, value]) => [key, typeof value === "string" ? truncateMiddle(value, shortenedArgumentChars) : compactValue(value)]),
          )
        : { removed: `[${call.function.arguments.length} characters of arguments were removed to save context]` };
    return { ...call, function: { ...call.function, arguments: JSON.stringify(compacted) } };
  });
  return { ...message, tool_calls };
}

/** A non-string argument value kept when small, else a marker. */
function compactValue(value: unknown): unknown {
  const json = JSON.stringify(value) ?? "";
  return json.length <= shortenedArgumentChars ? value : `[${json.length} characters removed to save context]`;
}
