import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { toolDefinitionsForModel } from "@agent-orchestrator/shared/wire";
import { fitContext } from "../loop/context-budget.js";
import type { ContextGuard, GuardedPrompt, PromptAsked } from "../loop/context-guard.js";
import { dateNote, withConversationNote } from "../loop/conversation-note.js";
import { compactedView } from "./compacted-view.js";
import { Compactor, type CompactorOptions } from "./compactor.js";
import { fixedPromptTokens, PromptCounter } from "./prompt-counter.js";
import { compactionThreshold, promptLimit } from "./route-window.js";

/** A compaction again in the same turn only once the prompt has grown this share of the window since the last one. */
const regrowthShare = 0.1;

/**
 * The share of the window a compaction aims the prompt at: well below the threshold (0.6 at the default 80 %), so
 * the calls after it have room to grow before the next.
 */
export const compactionTargetShare = (thresholdPercent: number): number => Math.min(0.6, (thresholdPercent / 100) * 0.75);

export interface WindowGuardOptions extends Omit<CompactorOptions, "targetShare"> {
  /** COMPACTION_THRESHOLD_PERCENT */
  thresholdPercent: number;
}

/**
 * Keeps every model call of a turn within its route's window (docs/models.md "Compaction"), behind the loop's
 * `ContextGuard` seam. Each call's prompt is the conversation as its markers say (compacted-view.ts), counted from
 * the provider's last count plus an estimate of what was added (prompt-counter.ts); past the threshold it is
 * compacted first (compactor.ts), and whatever happens it is cut to the prompt limit as a last resort
 * (loop/context-budget.ts). After a compaction the next one waits until the prompt has grown again, so a prompt a
 * compaction cannot bring below the threshold (a huge system prompt) is not compacted on every call.
 */
export class WindowGuard implements ContextGuard {
  private readonly counter = new PromptCounter();
  private readonly compactor: Compactor;
  /** the prompt's tokens right after this turn's last compaction */
  private compactedTo: number | undefined;

  constructor(private readonly options: WindowGuardOptions) {
    this.compactor = new Compactor({ ...options, targetShare: compactionTargetShare(options.thresholdPercent) });
  }

  async prepare(conversation: readonly ChatCompletionMessageParam[], tools: ReturnType<typeof toolDefinitionsForModel>, signal: AbortSignal, asked: PromptAsked = {}): Promise<GuardedPrompt> {
    const { force = false, reported, today } = asked;
    if (reported) this.counter.reported(reported.prompt_tokens);
    const { window } = this.options;
    const fixed = fixedPromptTokens(tools);
    const count = (messages: ChatCompletionMessageParam[]) => this.counter.count(messages, fixed);
    const [system, ...rest] = conversation;
    let view = system ? [system, ...compactedView(rest)] : [];
    const before = count(view);
    let compaction: GuardedPrompt["compaction"];
    if (force || this.due(before)) {
      const made = await this.compactor.compact(conversation, { before, reason: force ? "overflow" : "threshold", summaryOnly: force, count, signal });
      view = made.view;
      this.compactedTo = made.marker.compaction.after_tokens;
      compaction = { marker: made.marker, ...(made.usage ? { usage: made.usage } : {}) };
    }
    // the estimate fitContext counts in, scaled as the provider's counts have shown
    const fitted = fitContext(view, Math.floor((promptLimit(window) - fixed) / this.counter.scale));
    // the day's note goes after the system prompt, outside what is fitted and compacted (docs/models.md "Prompt caching")
    const sent = withConversationNote(fitted, today && dateNote(today));
    this.counter.sending(sent, fixed);
    return { messages: sent, ...(compaction ? { compaction } : {}) };
  }

  private due(tokens: number): boolean {
    const { window, thresholdPercent } = this.options;
    if (tokens <= compactionThreshold(window, thresholdPercent)) return false;
    return this.compactedTo === undefined || tokens >= this.compactedTo + window.tokens * regrowthShare;
  }
}
