/**
 * Prompt tokens as a real model family counts them: o200k_base, the tokenizer of GPT-4o, GPT-4.1, o-series and
 * GPT-5 models (`gpt-tokenizer`, pure JS, its tables bundled: no network). The scripted model's own count (four
 * characters a token) is an estimate; this is what a metered provider bills, within a few tokens per message.
 */
import { countTokens, encode } from "gpt-tokenizer/encoding/o200k_base";
import type { ChatRequestBody } from "@agent-orchestrator/testing/http-model";

/** The tokens a chat format adds around each message, and once to prime the answer (OpenAI's published rule for its chat models). */
const perMessage = 3;
const primingAnswer = 3;

export interface PromptTokens {
  /** the system message(s) */
  system: number;
  /** the tool list, counted as the JSON the request carries (providers render it in their own form, of about that size) */
  tools: number;
  /** every other message: user, assistant (text and tool calls) and tool results */
  conversation: number;
  total: number;
}

type Message = ChatRequestBody["messages"][number];

/** A message as the model reads it: its text, then its tool calls' names and arguments. */
function messageText(message: Message): string {
  const content = typeof message.content === "string" ? message.content : message.content === undefined || message.content === null ? "" : JSON.stringify(message.content);
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map((call) => JSON.stringify(call)).join("\n") : "";
  return calls ? `${content}\n${calls}` : content;
}

export function promptTokens(body: ChatRequestBody): PromptTokens {
  const count = (messages: Message[]) => messages.reduce((sum, message) => sum + perMessage + countTokens(messageText(message)), 0);
  const system = count(body.messages.filter((message) => message.role === "system"));
  const conversation = count(body.messages.filter((message) => message.role !== "system"));
  const tools = body.tools?.length ? countTokens(JSON.stringify(body.tools)) : 0;
  return { system, tools, conversation, total: system + tools + conversation + primingAnswer };
}

/** The request as a provider's prompt cache sees it: the tool list first, then each message in order. */
export function serializedPrompt(body: ChatRequestBody): number[] {
  const parts = [JSON.stringify(body.tools ?? []), ...body.messages.map((message) => `${message.role}\n${messageText(message)}`)];
  return encode(parts.join("\n"));
}

/** How many leading tokens two prompts share. */
export function commonPrefixTokens(previous: readonly number[], current: readonly number[]): number {
  const length = Math.min(previous.length, current.length);
  let index = 0;
  while (index < length && previous[index] === current[index]) index++;
  return index;
}
