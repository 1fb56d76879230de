import { z } from "zod";
import type { Usage } from "./usage.js";

/**
 * What a model route's tokens cost, per million tokens, in whatever currency the operator prices in: prompt
 * tokens, prompt tokens the provider served from its cache (the input price when absent), and answer tokens.
 */
export const ModelPrice = z
  .object({
    input: z.number().nonnegative(),
    cached_input: z.number().nonnegative().optional(),
    output: z.number().nonnegative(),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPrice>;

/** `MODEL_PRICE`'s form, `input,cached_input,output` (`0.15,0.075,0.6`; the middle one may be left empty). */
export function parseModelPrice(text: string): { ok: true; value: ModelPrice } | { ok: false; error: string } {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length !== 3) return { ok: false, error: "expected three prices: input,cached_input,output (per million tokens)" };
  const [input, cachedInput, output] = parts.map((part) => (part === "" ? undefined : Number(part)));
  const checked = ModelPrice.safeParse({ input, ...(cachedInput === undefined ? {} : { cached_input: cachedInput }), output });
  if (!checked.success) return { ok: false, error: "each price must be a number of at least 0 (input and output are required)" };
  return { ok: true, value: checked.data };
}

/** What `usage` costs at `price`: cached prompt tokens at the cached price, the rest of the prompt at the input price. */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = Math.min(usage.cached_prompt_tokens ?? 0, usage.prompt_tokens);
  const fresh = usage.prompt_tokens - cached;
  return (fresh * price.input + cached * (price.cached_input ?? price.input) + usage.completion_tokens * price.output) / 1_000_000;
}
