import { addUsage, costOf, zeroUsage, type ModelPrice, type Usage } from "@agent-orchestrator/shared/wire";
import { estimateTokens } from "../loop/context-budget.js";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";

/**
 * The model seam with a tally of every call's tokens, kept outside the loop so a turn that fails, is
 * cancelled or times out still knows what it spent (the loop's own sum is lost with its exception). A call
 * that ends normally counts what the model reported (nothing, from a server that reports no usage, as the
 * loop counts it). A call cut off before the model reported its usage (a cancel, a timeout, a broken stream,
 * an answer stopped at its size cap) was still billed for its prompt and for what it streamed, so it counts an
 * estimate of both at four characters a token. A call the server refused before sending anything counts 0. With
 * the route's price, every call's usage carries its cost, an estimate's and a zero's too. Each call's usage is
 * handed to `onCallEnded` as the call ends, before the caller hears of its end (the spending totals, counted as they
 * happen, written while the turn goes on: spending/delivery-spending.ts).
 */
export class UsageMeter implements ModelCaller {
  constructor(
    private readonly model: ModelCaller,
    private readonly price?: ModelPrice,
    private readonly onCallEnded?: (usage: Usage) => void,
    /** each call's tokens, in order */
    readonly byCall: Usage[] = [],
  ) {}

  /**
   * Another model's calls in the same tally, at that model's price, handed to the same `onCallEnded`: the
   * compaction route's hand-off summaries are a turn's calls too (docs/models.md "Compaction").
   */
  alongside(model: ModelCaller, price?: ModelPrice): UsageMeter {
    return new UsageMeter(model, price, this.onCallEnded, this.byCall);
  }

  /** the tokens of every call so far */
  get usage(): Usage {
    return this.byCall.reduce(addUsage, zeroUsage());
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    let reported: Usage | undefined;
    let parts = 0;
    let outputChars = 0;
    let ended = false;
    try {
      for await (const part of this.model.stream(request)) {
        parts++;
        if (part.type === "usage") reported = part.usage;
        else if (part.type === "text") outputChars += part.text.length;
        else if (part.type === "tool-call-deltas") {
          for (const delta of part.deltas) outputChars += (delta.function?.name?.length ?? 0) + (delta.function?.arguments?.length ?? 0);
        }
        yield part;
      }
      ended = true;
    } finally {
      const cutOff = !ended && (parts > 0 || request.signal.aborted);
      const usage = reported ?? (cutOff ? estimatedUsage(request, outputChars) : zeroUsage());
      const priced = this.price && usage.cost === undefined ? { ...usage, cost: costOf(usage, this.price) } : usage;
      this.byCall.push(priced);
      this.onCallEnded?.(priced);
    }
  }
}

function estimatedUsage(request: ModelRequest, outputChars: number): Usage {
  const prompt = estimateTokens(request.messages);
  const completion = Math.ceil(outputChars / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
