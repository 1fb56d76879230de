import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../loop/context-budget.js";
import { PromptCounter } from "./prompt-counter.js";

const system: ChatCompletionMessageParam = { role: "system", content: "s".repeat(4_000) };
const first: ChatCompletionMessageParam[] = [system, { role: "user", content: "hello" }];

describe("PromptCounter", () => {
  it("estimates a first prompt, the tools and framing included", () => {
    expect(new PromptCounter().count(first, 500)).toBe(estimateTokens(first) + 500);
  });

  it("counts a grown prompt as the provider's count of the last one plus an estimate of what was added", () => {
    const counter = new PromptCounter();
    counter.sending(first, 500);
    counter.reported(3_000);
    const added: ChatCompletionMessageParam[] = [{ role: "assistant", content: "a".repeat(400) }, { role: "user", content: "next" }];
    const ratio = 3_000 / (estimateTokens(first) + 500);
    expect(counter.count([...first, ...added], 500)).toBe(3_000 + Math.ceil(estimateTokens(added) * ratio));
  });

  it("scales the estimate of a prompt that no longer starts with the last one by how far the provider's count was from it", () => {
    const counter = new PromptCounter();
    counter.sending(first, 500);
    counter.reported(2 * (estimateTokens(first) + 500));
    const compacted: ChatCompletionMessageParam[] = [system, { role: "user", content: "a hand-off" }];
    expect(counter.scale).toBe(2);
    expect(counter.count(compacted, 500)).toBe(2 * (estimateTokens(compacted) + 500));
  });

  it("keeps the estimate when the server reports no usage", () => {
    const counter = new PromptCounter();
    counter.sending(first, 0);
    counter.reported(0);
    expect(counter.count([...first, { role: "user", content: "x" }], 0)).toBe(estimateTokens([...first, { role: "user", content: "x" }]));
  });
});
