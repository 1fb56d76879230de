import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { isCompactionMarker, type CompactionStage } from "@agent-orchestrator/shared/wire";

/**
 * Where the part a compaction keeps as it is begins, in the stored conversation: the latest round, the model's last
 * tool calls with their results (what it is about to read), or else the last message. A round is never split, so
 * no call is ever without its result. A `summary` keeps no user message: the hand-off carries the latest ones, and
 * a user message right after it would make two in a row, which strict chat templates refuse.
 */
export function keptFrom(conversation: readonly ChatCompletionMessageParam[], stage: CompactionStage): number {
  let index = conversation.length - 1;
  while (index >= 0 && isCompactionMarker(conversation[index])) index--;
  if (index < 0) return conversation.length;
  if (conversation[index]?.role === "tool") {
    while (index > 0 && (conversation[index]?.role === "tool" || isCompactionMarker(conversation[index]))) index--;
  }
  if (stage === "summary" && conversation[index]?.role === "user") return conversation.length;
  return index;
}
