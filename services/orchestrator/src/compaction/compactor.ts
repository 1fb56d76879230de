import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { isCompactionMarker, type CompactionMarker, type CompactionReason, type CompactionStage, type ToolContext, type Usage } from "@agent-orchestrator/shared/wire";
import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { ModelCaller } from "../loop/model-caller.js";
import type { ToolCaller } from "../loop/tool-caller.js";
import { compactedView } from "./compacted-view.js";
import { readHandoffFiles } from "./handoff-files.js";
import { handoffSummary } from "./handoff-summary.js";
import { handoffText, textTokens } from "./handoff-text.js";
import { keptFrom } from "./kept-from.js";
import { summaryTranscript } from "./summary-transcript.js";
import { withoutSecrets } from "./without-secrets.js";
import { workflowPlace } from "./workflow-place.js";
import type { RouteWindow } from "./route-window.js";

/** Tokens of the user's latest messages a hand-off carries at most, and of one of them. */
const userMessagesTokens = 2_000;
/** The share of the hand-off the summary may take, in words of about 1.4 tokens. */
const summaryShare = 0.35;
/** Failures of the summary's writer that end the turn as they would any model call: the rest fall back to a hand-off without summary. */
const endingCodes = new Set(["CANCELLED", "TURN_TIMEOUT", "BUDGET_EXCEEDED", "SERVICE_TIMEOUT"]);

/** A compaction made: the marker the conversation keeps, the prompt it gives, and the summary's tokens. */
export interface Compaction {
  marker: CompactionMarker;
  /** the prompt after it: the system prompt, then the compacted conversation */
  view: ChatCompletionMessageParam[];
  usage?: Usage;
}

export interface CompactorOptions {
  /** the route's window: the prompt after a compaction aims at `targetShare` of it */
  window: RouteWindow;
  /** the share of the window a compaction aims the prompt at, below the threshold (docs/models.md "Compaction") */
  targetShare: number;
  /** writes the hand-off summary: the compaction route's model, or the turn's own */
  summarizer: ModelCaller;
  /** the summarizer's window, which bounds the transcript it reads */
  summarizerWindow: RouteWindow;
  /** re-reads the workflow's files with the chat's own context (handoff-files.ts) */
  files: { tools: ToolCaller; context: ToolContext; callPrefix: string };
  logger?: Logger;
  now?: () => Date;
}

/**
 * Compacts a conversation in stages (docs/models.md "Compaction"): first the tool results before the latest round
 * become stubs; when that leaves the prompt above the target (or a summary is asked for), the older conversation
 * becomes a hand-off: a summary written by a model, the user's latest messages, the workflow's file and its
 * current step file read again from disk, and the files the chat changed last. Nothing stored is changed: the
 * result is a marker to add to the conversation, which every later prompt is built from (compacted-view.ts).
 */
export class Compactor {
  constructor(private readonly options: CompactorOptions) {}

  /**
   * `conversation` is the whole prompt's source, system prompt first; `count` gives a prompt's tokens as the
   * provider counts them; `before` is the current prompt's count.
   */
  async compact(
    conversation: readonly ChatCompletionMessageParam[],
    request: { before: number; reason: CompactionReason; summaryOnly: boolean; count: (messages: ChatCompletionMessageParam[]) => number; signal: AbortSignal },
  ): Promise<Compaction> {
    const [system, ...rest] = conversation;
    if (!system) throw new AppError("INTERNAL", "A compaction needs the system prompt");
    const target = Math.floor(this.options.window.tokens * this.options.targetShare);
    const viewWith = (marker: CompactionMarker) => [system, ...compactedView([...rest, marker as unknown as ChatCompletionMessageParam])];
    if (!request.summaryOnly) {
      const stubs = this.marker("tool_results", keptFrom(rest, "tool_results"), "[Old tool results before this point are stubs in the model's prompt.]", request);
      const view = viewWith(stubs);
      const after = request.count(view);
      if (after <= target) return { marker: withAfter(stubs, after), view };
    }
    const kept = keptFrom(rest, "summary");
    const base = request.count(viewWith(this.marker("summary", kept, "", request)));
    const budget = Math.max(Math.floor(this.options.window.tokens * 0.1), target - base);
    const written = await this.summary(rest.slice(0, kept), budget, request.signal);
    const place = workflowPlace(rest);
    const files = await readHandoffFiles(place, this.options.files, request.signal);
    const text = handoffText({ summary: written?.text ?? "", userMessages: latestUserMessages(rest), files, changedPaths: place.changed }, budget);
    const handoff = this.marker("summary", kept, text, request);
    const view = viewWith(handoff);
    return { marker: withAfter(handoff, request.count(view)), view, ...(written ? { usage: written.usage } : {}) };
  }

  private marker(stage: CompactionStage, keptFrom: number, content: string, request: { before: number; reason: CompactionReason }): CompactionMarker {
    const at = (this.options.now?.() ?? new Date()).toISOString();
    return { role: "system", content, compaction: { stage, before_tokens: request.before, after_tokens: request.before, kept_from: keptFrom, reason: request.reason, at } };
  }

  /**
   * The summary of `older` (the messages the hand-off replaces, their old tool results as stubs), by the summarizer,
   * in about `summaryShare` of the hand-off's budget. A model failure leaves the hand-off without one (logged), but a
   * cancel, the turn's time or a budget ends the compaction as it ends the turn.
   */
  private async summary(older: readonly ChatCompletionMessageParam[], budgetTokens: number, signal: AbortSignal) {
    const stubbed = compactedView([...older, { role: "system", content: "", compaction: { stage: "tool_results", before_tokens: 0, after_tokens: 0, kept_from: older.length, reason: "threshold", at: "" } } as unknown as ChatCompletionMessageParam]);
    const { summarizerWindow } = this.options;
    const transcript = withoutSecrets(summaryTranscript(stubbed, Math.max(4_000, (summarizerWindow.tokens - summarizerWindow.outputReserve - 1_500) * 3)));
    const words = Math.max(150, Math.min(1_500, Math.floor((budgetTokens * summaryShare) / 1.4)));
    try {
      return await handoffSummary(this.options.summarizer, transcript, words, signal);
    } catch (error) {
      if (AppError.is(error) && endingCodes.has(error.code)) throw error;
      this.options.logger?.warn({ err: error }, "the hand-off summary could not be written; the chat is compacted without one");
      return undefined;
    }
  }
}

const withAfter = (marker: CompactionMarker, after: number): CompactionMarker => ({ ...marker, compaction: { ...marker.compaction, after_tokens: after } });

/** The user's latest messages, oldest first, within `userMessagesTokens` (the latest always, cut if it alone is longer). */
function latestUserMessages(conversation: readonly ChatCompletionMessageParam[]): string[] {
  const messages: string[] = [];
  let left = userMessagesTokens;
  for (let index = conversation.length - 1; index >= 0 && left > 0; index--) {
    const message = conversation[index];
    if (message?.role !== "user" || isCompactionMarker(message)) continue;
    const text = typeof message.content === "string" ? message.content : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    const kept = textTokens(text) <= left ? text : `${text.slice(0, left * 4)}…`;
    if (messages.length > 0 && kept !== text) break;
    messages.unshift(kept);
    left -= textTokens(kept);
  }
  return messages;
}
