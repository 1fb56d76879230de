import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { isCompactionMarker } from "@agent-orchestrator/shared/wire";
import { indexToolCalls } from "./tool-call-index.js";
import { stubbedArguments, stubbedToolResult } from "./tool-result-stub.js";

/**
 * The conversation as the model reads it after its compactions (docs/models.md "Compaction"), from the stored one
 * (after the system prompt, markers included): the latest `summary` marker's hand-off as the first message and
 * the messages from its `kept_from` on; every tool result and long argument before the furthest `tool_results`
 * marker's `kept_from` as a stub; the markers themselves left out. Only the stored messages and markers decide it,
 * so every call after a compaction builds the same bytes (and a provider's prompt cache serves them again).
 * Messages that are not changed are the same objects.
 */
export function compactedView(conversation: readonly ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  let start = 0;
  let handoff: string | undefined;
  let stubBefore = 0;
  for (const message of conversation) {
    if (!isCompactionMarker(message)) continue;
    const { stage, kept_from } = message.compaction;
    if (stage === "summary") {
      start = kept_from;
      handoff = message.content;
    } else stubBefore = Math.max(stubBefore, kept_from);
  }
  const calls = stubBefore > start ? indexToolCalls(conversation) : new Map();
  const view: ChatCompletionMessageParam[] = handoff === undefined ? [] : [{ role: "user", content: handoff }];
  for (let index = start; index < conversation.length; index++) {
    const message = conversation[index] as ChatCompletionMessageParam;
    if (isCompactionMarker(message)) continue;
    if (index >= stubBefore) view.push(message);
    else if (message.role === "tool") view.push(stubbedToolResult(message, calls.get(message.tool_call_id)));
    else view.push(stubbedArguments(message, calls));
  }
  return view;
}
