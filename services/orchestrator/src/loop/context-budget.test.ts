import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { estimateTokens, fitContext } from "./context-budget.js";

const big = (tag: string, size = 40_000) => tag + "x".repeat(size);
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

/** An earlier turn: a user message, a call that saved a large file, its result, and a long answer. */
const earlierTurn = (index: number): ChatCompletionMessageParam[] => [
  { role: "user", content: big(`question ${index} `, 10_000) },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: `save-${index}`, type: "function", function: { name: "save_output", arguments: JSON.stringify({ file_path: `{session-folder}/${index}.md`, content: big("doc", 30_000) }) } },
    ],
  },
  { role: "tool", tool_call_id: `save-${index}`, content: big("saved", 3_000) },
  { role: "assistant", content: big(`answer ${index} `, 50_000) },
];

/** Every tool result follows an assistant message that made its call. */
function expectPaired(messages: readonly ChatCompletionMessageParam[]): void {
  let offered: string[] = [];
  for (const message of messages) {
    if (message.role === "assistant") offered = (message.tool_calls ?? []).map((call) => call.id);
    if (message.role === "tool") expect(offered).toContain(message.tool_call_id);
  }
}

describe("estimateTokens", () => {
  it("counts four bytes of the conversation's UTF-8 JSON a token, however often a message is counted", () => {
    const messages: ChatCompletionMessageParam[] = [...conversation, { role: "user", content: "日本語のテキスト é" }];
    const exact = Math.ceil(Buffer.byteLength(JSON.stringify(messages), "utf8") / 4);
    expect(estimateTokens(messages)).toBe(exact);
    expect(estimateTokens(messages)).toBe(exact);
    expect(estimateTokens(messages.slice(2))).toBe(Math.ceil(Buffer.byteLength(JSON.stringify(messages.slice(2)), "utf8") / 4));
    expect(estimateTokens([])).toBe(1);
  });
});

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

  it("touches the system prompt, the latest user message and the current turn only when the rest is not enough", () => {
    const budget = estimateTokens(conversation) - 15_000;
    const fitted = fitContext(conversation, budget);
    expect(fitted[0]).toEqual(conversation[0]);
    expect(fitted[6]).toEqual(conversation[6]);
    expect(fitted[7]).toEqual(conversation[7]);
    expect(String(fitted[4]?.content)).toContain("was removed");
    expect(estimateTokens(fitted)).toBeLessThanOrEqual(budget);
  });

  it("case 129: shortens earlier user and assistant text and tool-call arguments, keeping the arguments JSON", () => {
    const messages: ChatCompletionMessageParam[] = [{ role: "system", content: "prompt" }, ...earlierTurn(1), { role: "user", content: "now" }];
    const budget = estimateTokens(messages) - 20_000;
    const fitted = fitContext(messages, budget);
    expect(estimateTokens(fitted)).toBeLessThanOrEqual(budget);
    expect(fitted).toHaveLength(messages.length);
    const call = fitted[2]?.role === "assistant" ? fitted[2].tool_calls?.[0] : undefined;
    const args = JSON.parse(call?.type === "function" ? call.function.arguments : "{}") as Record<string, string>;
    expect(args["file_path"]).toBe("{session-folder}/1.md");
    expect(args["content"]?.length).toBeLessThanOrEqual(200);
    expect(fitted.at(-1)).toEqual({ role: "user", content: "now" });
  });

  it("case 129: drops the oldest earlier turns whole when shortening them is not enough, and says so", () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: "prompt" },
      ...Array.from({ length: 300 }, (_unused, index) => earlierTurn(index)).flat(),
      { role: "user", content: "now" },
    ];
    const budget = 20_000;
    const fitted = fitContext(messages, budget);
    expect(estimateTokens(fitted)).toBeLessThanOrEqual(budget);
    expect(fitted[1]).toEqual({ role: "user", content: expect.stringMatching(/^\[The \d+ earliest messages of this conversation were removed/) });
    expect(fitted[2]?.role).toBe("user");
    expect(fitted.at(-1)).toEqual({ role: "user", content: "now" });
    expectPaired(fitted);
  });

  it("case 129: cuts a single user message past the window, so the prompt sent stays within the budget", () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: "prompt" },
      ...earlierTurn(1),
      { role: "user", content: `START${"é".repeat(2_000_000)}END` },
    ];
    const budget = 100_000;
    const fitted = fitContext(messages, budget);
    expect(estimateTokens(fitted)).toBeLessThanOrEqual(budget);
    const latest = String(fitted.at(-1)?.content);
    expect(latest).toMatch(/^STARTé+\n\[\.\.\. \d+ bytes omitted \.\.\.\]\né+END$/);
    expect(fitted[0]).toEqual(messages[0]);
  });

  it("case 129: shortens the current turn's earlier rounds before its latest one, and cuts the latest round only as a last resort", () => {
    const round = (id: string, size: number): ChatCompletionMessageParam[] => [
      { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "save_output", arguments: JSON.stringify({ file_path: `{session-folder}/${id}.md`, content: big(id, size) }) } }] },
      { role: "tool", tool_call_id: id, content: big(`result ${id}`, size) },
    ];
    const messages: ChatCompletionMessageParam[] = [{ role: "system", content: "prompt" }, { role: "user", content: "go" }, ...round("r1", 200_000), ...round("r2", 20_000)];
    const budget = 20_000;
    const fitted = fitContext(messages, budget);
    expect(estimateTokens(fitted)).toBeLessThanOrEqual(budget);
    expect(String(fitted[3]?.content)).toContain("was removed to save context");
    expect(fitted.slice(4)).toEqual(messages.slice(4));

    const tight = fitContext(messages, 2_000);
    expect(estimateTokens(tight)).toBeLessThanOrEqual(2_000);
    expectPaired(tight);
  });
});
