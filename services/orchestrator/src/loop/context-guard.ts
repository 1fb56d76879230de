import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { CompactionMarker, toolDefinitionsForModel, Usage } from "@agent-orchestrator/shared/wire";

/** What one model call sends, and the compaction made for it, if any. */
export interface GuardedPrompt {
  /** the conversation as the model reads it: compacted where a marker says so, within the window */
  messages: ChatCompletionMessageParam[];
  /**
   * set when this call's prompt was compacted: the marker the conversation keeps from now on (stored with the turn,
   * so later turns build the same prompt; its figures are the `compaction` event's), and the tokens of the hand-off
   * summary written for it
   */
  compaction?: { marker: CompactionMarker; usage?: Usage };
}

/**
 * The loop's seam to the context window (compaction/ implements it): asked before each model call for the prompt
 * to send, the day's note included (conversation-note.ts), so what it counts is what goes, and told then what the
 * provider counted of the last one. The loop keeps the whole conversation; the guard decides what the model sees of it.
 */
export interface ContextGuard {
  /**
   * The prompt for the next call of `conversation` (system prompt first, earlier markers included), compacted
   * first when it passes the threshold, or whatever its size when `force` (the provider refused the last one as
   * too long). `reported` is the usage the provider reported for the prompt `prepare` last gave, when it answered.
   */
  prepare(conversation: readonly ChatCompletionMessageParam[], tools: ReturnType<typeof toolDefinitionsForModel>, signal: AbortSignal, asked?: PromptAsked): Promise<GuardedPrompt>;
}

/** How the next prompt is asked for. */
export interface PromptAsked {
  /** the provider refused the last prompt as too long: compact whatever its size */
  force?: boolean;
  /** the usage the provider reported for the last prompt */
  reported?: Usage | undefined;
  /** the day the prompt tells the model of (`withConversationNote`); without it no date */
  today?: Date | undefined;
}
