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
 * to send, told after it what the provider counted. The loop keeps the whole conversation; the guard decides what
 * the model sees of it.
 */
export interface ContextGuard {
  /**
   * The prompt for the next call of `conversation` (system prompt first, earlier markers included), compacted
   * first when it passes the threshold, or whatever its size when `force` (the provider refused the last one as
   * too long).
   */
  prepare(
    conversation: readonly ChatCompletionMessageParam[],
    tools: ReturnType<typeof toolDefinitionsForModel>,
    signal: AbortSignal,
    force?: boolean,
  ): Promise<GuardedPrompt>;
  /** The usage the provider reported for the prompt `prepare` last gave. */
  observe(usage: Usage): void;
}
