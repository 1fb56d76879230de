import type { CompactionPoint, CompactionReason, CompactionStage } from "@agent-orchestrator/shared/wire";
import { h } from "../lib/dom.js";

const stages: Record<CompactionStage, string> = { tool_results: "old tool results shortened", summary: "earlier conversation summarised" };
const reasons: Record<CompactionReason, string> = { threshold: "", overflow: " after the model refused a longer prompt", manual: " by hand" };

/**
 * The line where a chat was compacted for its model (docs/models.md "Compaction"): every message stays in the chat;
 * from this point on the model reads a shorter form of what came before.
 */
export function compactionLine(compaction: Pick<CompactionPoint, "before_tokens" | "after_tokens" | "stage" | "reason">): HTMLElement {
  const tokens = `${compaction.before_tokens.toLocaleString("en-US")} → ${compaction.after_tokens.toLocaleString("en-US")} tokens`;
  return h(
    "div",
    { class: "compaction-line", role: "note", title: "The whole conversation stays here; from this point on the model reads a compacted form of what came before." },
    `Compacted for the model: ${stages[compaction.stage]}${reasons[compaction.reason]} (${tokens})`,
  );
}
