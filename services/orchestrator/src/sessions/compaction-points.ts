import { isCompactionMarker, type CompactionPoint, type ConversationMessage } from "@agent-orchestrator/shared/wire";
import { isVisible } from "./visible-messages.js";

/** Points one view gives at most, the latest: a chat compacted more often shows its recent ones. */
const maxPoints = 100;

/**
 * Where a chat was compacted (docs/models.md "Compaction"), as `GET /api/sessions/:id` shows it: each marker of its
 * conversation by the number of visible messages before it (visible-messages.ts), so a page draws a line there.
 */
export function compactionPoints(messages: readonly ConversationMessage[]): CompactionPoint[] {
  const points: CompactionPoint[] = [];
  let visible = 0;
  for (const message of messages) {
    if (isCompactionMarker(message)) {
      const { before_tokens, after_tokens, stage, reason, at } = message.compaction;
      points.push({ message_index: visible, before_tokens, after_tokens, stage, reason, at });
    } else if (isVisible(message)) visible++;
  }
  return points.slice(-maxPoints);
}
