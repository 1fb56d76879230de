import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpModel, type HttpModel } from "./http-model.js";

let model: HttpModel;
let client: OpenAI;

beforeAll(async () => {
  model = await startHttpModel();
  client = new OpenAI({ baseURL: model.url, apiKey: "test", maxRetries: 0 });
});
afterAll(() => model.close());

describe("the scripted model through the real openai client", () => {
  it("streams text deltas and the usage chunk", async () => {
    model.enqueue({ text: "Hello there, Friend — ünïcødé 💡 ok" });
    const stream = await client.chat.completions.create({
      model: "scripted",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    let deltas = 0;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) {
        text += piece;
        deltas++;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("Hello there, Friend — ünïcødé 💡 ok");
    expect(deltas).toBeGreaterThan(1);
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  it("streams tool calls split across chunks that the SDK's accumulator reassembles", async () => {
    model.enqueue({
      toolCalls: [
        { name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } },
        { name: "list_files", arguments: { path: "{session-folder}" } },
      ],
    });
    const stream = client.chat.completions.stream({
      model: "scripted",
      messages: [{ role: "user", content: "load it" }],
      tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
    });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    const calls = choice?.message.tool_calls ?? [];
    expect(calls.map((call) => call.type === "function" && [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ["read_file", { file_path: "{bundle-root}/config.yaml" }],
      ["list_files", { path: "{session-folder}" }],
    ]);
    expect(model.requests.at(-1)?.body.tools?.[0]?.function.name).toBe("read_file");
  });

  it("answers without streaming too", async () => {
    model.enqueue({ text: "plain" });
    const completion = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }] });
    expect(completion.choices[0]?.message.content).toBe("plain");
  });

  it("injects an HTTP error the client sees with its status", async () => {
    model.enqueue({ status: 429, headers: { "retry-after-ms": "10" } });
    await expect(client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({
      status: 429,
    });
  });

  it("asks the responder when nothing is queued, with the request it received", async () => {
    model.setResponder((request) => ({ text: `you said ${String(request.messages.at(-1)?.content)}` }));
    const completion = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "ping" }] });
    expect(completion.choices[0]?.message.content).toBe("you said ping");
  });

  it("paces its output at outputTokensPerSecond, four characters a token", async () => {
    // 403 characters of arguments and 9 of name: 103 tokens, at 1,000 a second 103 ms
    model.enqueue({ toolCalls: [{ name: "save_file", arguments: { content: "x".repeat(389) } }], outputTokensPerSecond: 1_000 });
    const started = performance.now();
    const stream = client.chat.completions.stream({ model: "scripted", messages: [{ role: "user", content: "x" }], stream_options: { include_usage: true } });
    const completion = await stream.finalChatCompletion();
    expect(completion.usage?.completion_tokens).toBe(103);
    // a timer may fire a millisecond early; never much earlier
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("can cut a stream off mid-way", async () => {
    model.enqueue({ text: "a long answer that will not arrive whole", dropAfterChunks: 2 });
    const stream = await client.chat.completions.create({ model: "scripted", stream: true, messages: [{ role: "user", content: "x" }] });
    await expect(
      (async () => {
        for await (const _chunk of stream) {
          // drain until the connection drops
        }
      })(),
    ).rejects.toThrow();
  });

  it("answers with the usage figures a test chooses", async () => {
    model.enqueue({ text: "counted", usage: { prompt_tokens: 15_500, completion_tokens: 20, cached_tokens: 12_000 } });
    const completion = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }] });
    expect(completion.usage).toMatchObject({ prompt_tokens: 15_500, completion_tokens: 20, total_tokens: 15_520, prompt_tokens_details: { cached_tokens: 12_000 } });
  });

  it("refuses a request longer than its window as OpenAI does, and answers one within it", async () => {
    model.setContextWindow(100);
    try {
      const refusal = client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x".repeat(500) }] });
      await expect(refusal).rejects.toMatchObject({ status: 400, code: "context_length_exceeded", message: expect.stringContaining("maximum context length is 100 tokens") });
      expect(model.requests.at(-1)).toMatchObject({ refused: "context_length_exceeded", promptTokens: 134 });
      // the answer's room counts too
      const withAnswer = client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "short" }], max_tokens: 200 });
      await expect(withAnswer).rejects.toMatchObject({ code: "context_length_exceeded", message: expect.stringContaining("in the completion") });
      model.enqueue({ text: "fits" });
      const fits = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "short" }] });
      expect(fits.choices[0]?.message.content).toBe("fits");
    } finally {
      model.setContextWindow(undefined);
    }
  });

  it("sends a chosen error code, so a test can script a provider's overflow", async () => {
    model.enqueue({ status: 400, errorCode: "context_length_exceeded" });
    await expect(client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 400, code: "context_length_exceeded" });
  });
});
