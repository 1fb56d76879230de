import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { estimateTokens, fitContext } from "./context-budget.js";

const big = (tag: string) => tag + "x".repeat(40_000);
const conversation: ChatCompletionMessageParam[] = [
  { role: "system", content: big("system") },
  { role: "user", content: "first" },
  { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "read_file", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "a", content: big("old-result-1") },
  { role: "tool", tool_call_id: "b", content: big("old-result-2") },
  { role: "assistant", content: "answer" },
  { role: "user", content: big("latest") },
  { role: "tool", tool_call_id: "c", content: big("current-turn") },
];

describe("fitContext", () => {
  it("leaves a conversation under the budget untouched", () => {
    expect(fitContext(conversation, 1_000_000)).toEqual(conversation);
  });

  it("replaces the oldest large tool results first, until the conversation fits", () => {
    const budget = estimateTokens(conversation) - 5_000;
    const fitted = fitContext(conversation, budget);
    expect(String(fitted[3]?.content)).toMatch(/^\[This earlier tool result \(\d+ characters\) was removed/);
    expect(fitted[4]?.content).toBe(conversation[4]?.content);
    expect(estimateTokens(fitted)).toBeLessThanOrEqual(budget);
  });

  it("never touches the system prompt, the latest user message or the current turn", () => {
    const fitted = fitContext(conversation, 10);
    expect(fitted[0]).toEqual(conversation[0]);
    expect(fitted[6]).toEqual(conversation[6]);
    expect(fitted[7]).toEqual(conversation[7]);
    expect(String(fitted[4]?.content)).toContain("was removed");
  });
});
