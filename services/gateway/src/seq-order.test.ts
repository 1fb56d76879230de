import { describe, expect, it } from "vitest";
import type { RunEvent } from "@agent-orchestrator/shared";
import { inSeqOrder } from "./seq-order.js";

const ids = { session_id: "s1", run_id: "r1" };
const session = (seq: number, attempt = 1): RunEvent => ({ ...ids, seq, type: "session", agent_id: "a", attempt });
const delta = (seq: number): RunEvent => ({ ...ids, seq, type: "delta", text: `t${seq}` });
const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
const done = (seq: number): RunEvent => ({ ...ids, seq, type: "done", response: "ok", iterations: 1, usage, usage_by_call: [], session_usage: usage });

async function ordered(events: RunEvent[]): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of inSeqOrder((async function* () { yield* events; })())) seen.push(`${event.type}${event.seq}`);
  return seen;
}

describe("stored run events in seq order", () => {
  it("puts an event stored after later ones (a re-send after a leader change) back in place, once", async () => {
    expect(await ordered([session(0), delta(1), delta(3), delta(4), delta(2), delta(3), delta(4), done(5)])).toEqual([
      "session0", "delta1", "delta2", "delta3", "delta4", "done5",
    ]);
  });

  it("waits for a missing event when the done came first, and stops at the done", async () => {
    expect(await ordered([session(0), done(2), delta(1), delta(9)])).toEqual(["session0", "delta1", "done2"]);
  });

  it("numbers a takeover's events from 0 again, after what the first attempt stored", async () => {
    expect(await ordered([session(0), delta(1), delta(3), session(0, 2), delta(1), done(2)])).toEqual([
      "session0", "delta1", "delta3", "session0", "delta1", "done2",
    ]);
  });

  it("gives what is held, in order, when the stream goes quiet before the turn's end", async () => {
    expect(await ordered([session(0), delta(3), delta(2)])).toEqual(["session0", "delta2", "delta3"]);
  });
});
