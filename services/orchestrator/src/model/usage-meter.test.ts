import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../loop/model-caller.js";
import { InMemoryModel } from "../testing/in-memory-model.js";
import { UsageMeter } from "./usage-meter.js";

const request = (signal = new AbortController().signal): ModelRequest => ({ messages: [{ role: "user", content: "x".repeat(400) }], tools: [], signal });

/** Reads a call to its end, or until it throws. */
async function drain(meter: UsageMeter, call: ModelRequest): Promise<void> {
  try {
    for await (const _part of meter.stream(call)) {
      // only the meter's tally matters here
    }
  } catch {
    // a failed call still counts
  }
}

describe("UsageMeter", () => {
  it("counts what the model reported for every call that ended, and keeps them after a later call fails", async () => {
    const meter = new UsageMeter(
      new InMemoryModel([
        { text: "one", usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } },
        { text: "two", usage: { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 } },
        { fail: new Error("HTTP 500") },
      ]),
    );
    for (let call = 0; call < 3; call++) await drain(meter, request());
    // the refused call sent nothing back: it counts nothing
    expect(meter.byCall).toEqual([
      { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
      { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 },
      { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    ]);
    expect(meter.usage).toEqual({ prompt_tokens: 30, completion_tokens: 3, total_tokens: 33 });
  });

  it("estimates a call cut off before the model reported its usage: its prompt and what it streamed, four characters a token", async () => {
    const meter = new UsageMeter(new InMemoryModel([{ text: "12345678", failAfterText: new Error("connection reset") }, { hang: true }]));
    await drain(meter, request());
    const controller = new AbortController();
    const cancelled = drain(meter, request(controller.signal));
    controller.abort(new Error("cancelled"));
    await cancelled;
    const prompt = Math.ceil(JSON.stringify(request().messages).length / 4);
    expect(meter.byCall).toEqual([
      { prompt_tokens: prompt, completion_tokens: 2, total_tokens: prompt + 2 },
      { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt },
    ]);
  });

  it("estimates a call its reader stopped early (an answer cut at its size cap)", async () => {
    const meter = new UsageMeter(new InMemoryModel([{ text: "abcdefgh" }]));
    for await (const part of meter.stream(request())) if (part.type === "text") break;
    expect(meter.byCall[0]?.completion_tokens).toBe(1);
    expect(meter.byCall[0]?.prompt_tokens).toBeGreaterThan(0);
  });
});
