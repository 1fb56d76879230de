import { describe, expect, it } from "vitest";
import { costOf, parseModelPrice } from "./model-price.js";
import { addUsage } from "./usage.js";

describe("model prices", () => {
  it("reads MODEL_PRICE's three numbers, the cached one optional", () => {
    expect(parseModelPrice("0.15,0.075,0.6")).toEqual({ ok: true, value: { input: 0.15, cached_input: 0.075, output: 0.6 } });
    expect(parseModelPrice(" 2 , , 8 ")).toEqual({ ok: true, value: { input: 2, output: 8 } });
    expect(parseModelPrice("1,2")).toMatchObject({ ok: false, error: expect.stringContaining("three prices") });
    expect(parseModelPrice("1,x,2")).toMatchObject({ ok: false });
    expect(parseModelPrice("-1,0,2")).toMatchObject({ ok: false });
  });

  it("prices cached prompt tokens at the cached price and the rest at the input price", () => {
    const usage = { prompt_tokens: 1_000_000, cached_prompt_tokens: 400_000, completion_tokens: 100_000, total_tokens: 1_100_000 };
    expect(costOf(usage, { input: 1, cached_input: 0.5, output: 4 })).toBeCloseTo(0.6 + 0.2 + 0.4);
    expect(costOf(usage, { input: 1, output: 4 })).toBeCloseTo(1 + 0.4);
  });

  it("adds cached and reasoning tokens and costs only where one side has them", () => {
    const plain = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    expect(addUsage(plain, plain)).toEqual({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
    expect(addUsage(plain, { ...plain, cached_prompt_tokens: 1, cost: 0.5 })).toEqual({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6, cached_prompt_tokens: 1, cost: 0.5 });
    expect(addUsage({ ...plain, reasoning_tokens: 2 }, { ...plain, reasoning_tokens: 1 })).toEqual({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6, reasoning_tokens: 3 });
  });
});
