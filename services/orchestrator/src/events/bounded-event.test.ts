import { describe, expect, it } from "vitest";
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { argumentPreviewChars, boundEvent as boundEncoded, prefixWithinBytes, previewArguments } from "./bounded-event.js";

const boundEvent = (event: RunEvent, maxBytes: number) => boundEncoded(event, maxBytes).map((bounded) => bounded.event);

const base = { session_id: "s1", run_id: "r1", seq: 0 };
const size = (event: RunEvent) => Buffer.byteLength(JSON.stringify(event));

describe("bounded run events", () => {
  it("shows a 1 MiB save_output argument as a preview naming its full length", () => {
    const content = "x".repeat(1024 * 1024);
    const [event] = boundEvent({ ...base, type: "tool_call", call_id: "c1", name: "save_output", arguments: { file_path: "a.md", content } }, 64 * 1024);
    expect(event).toMatchObject({ type: "tool_call", arguments_truncated: true, arguments: { file_path: "a.md" } });
    const shown = (event as Extract<RunEvent, { type: "tool_call" }>).arguments["content"] as string;
    expect(shown.length).toBeLessThan(argumentPreviewChars + 200);
    expect(shown).toContain("1048576 characters, 1048576 bytes in all");
  });

  it("keeps small arguments as they are, without the flag", () => {
    const event: RunEvent = { ...base, type: "tool_call", call_id: "c1", name: "read_file", arguments: { file_path: "a.md" } };
    expect(boundEvent(event, 64 * 1024)).toEqual([event]);
  });

  it("replaces arguments with thousands of keys by one bounded preview", () => {
    const args = Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`k${index}`, "v".repeat(10)]));
    const [event] = boundEvent({ ...base, type: "tool_call", call_id: "c1", name: "save_output", arguments: args }, 1024 * 1024);
    expect(size(event as RunEvent)).toBeLessThan(16 * 1024);
    expect(event).toMatchObject({ arguments_truncated: true });
  });

  it("splits a delta larger than the budget into several that rebuild the text", () => {
    const text = "é\"".repeat(300_000);
    const events = boundEvent({ ...base, type: "delta", text }, 64 * 1024);
    expect(events.length).toBeGreaterThan(1);
    for (const event of events) expect(size(event)).toBeLessThanOrEqual(64 * 1024);
    expect(events.map((event) => (event as Extract<RunEvent, { type: "delta" }>).text).join("")).toBe(text);
  });

  it("numbers the pieces of a split delta on from its seq, and sends each as the JSON of its event", () => {
    const bounded = boundEncoded({ ...base, seq: 7, type: "delta", text: "a".repeat(200_000) }, 64 * 1024);
    expect(bounded.map(({ event }) => event.seq)).toEqual(bounded.map((_, index) => 7 + index));
    for (const { event, data } of bounded) expect(JSON.parse(Buffer.from(data).toString("utf8"))).toEqual(event);
  });

  it("cuts a done answer over the budget and flags it", () => {
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    const done: RunEvent = { ...base, type: "done", response: "ü".repeat(600_000), iterations: 1, usage, usage_by_call: [usage], session_usage: usage };
    const [event] = boundEvent(done, 256 * 1024);
    expect(size(event as RunEvent)).toBeLessThanOrEqual(256 * 1024);
    expect(event).toMatchObject({ type: "done", response_truncated: true });
  });

  it("cuts text on a character boundary", () => {
    expect(prefixWithinBytes("aé", 2)).toBe("a");
    expect(prefixWithinBytes("aé", 3)).toBe("aé");
  });
});
