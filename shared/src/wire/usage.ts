import { z } from "zod";

/**
 * Token usage as the model reports it in the stream's usage chunk. `cached_prompt_tokens` is the part of the
 * prompt the provider served from its prompt cache (`prompt_tokens_details.cached_tokens`), counted within
 * `prompt_tokens`; `reasoning_tokens` the part of the completion a reasoning model spent thinking
 * (`completion_tokens_details.reasoning_tokens`), counted within `completion_tokens`; `cost` is what the tokens cost at the model route's price (docs/models.md "Cost"), absent
 * when the route has no price.
 */
export const Usage = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  cached_prompt_tokens: z.number().int().nonnegative().optional(),
  reasoning_tokens: z.number().int().nonnegative().optional(),
  cost: z.number().nonnegative().optional(),
});
export type Usage = z.infer<typeof Usage>;

export const zeroUsage = (): Usage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

/** The sum of two usages; an optional count stays absent when neither has it. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
  if (a.cached_prompt_tokens !== undefined || b.cached_prompt_tokens !== undefined) {
    sum.cached_prompt_tokens = (a.cached_prompt_tokens ?? 0) + (b.cached_prompt_tokens ?? 0);
  }
  if (a.reasoning_tokens !== undefined || b.reasoning_tokens !== undefined) {
    sum.reasoning_tokens = (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0);
  }
  if (a.cost !== undefined || b.cost !== undefined) sum.cost = (a.cost ?? 0) + (b.cost ?? 0);
  return sum;
}
