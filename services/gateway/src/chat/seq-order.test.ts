import { describe, expect, it } from "vitest";
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { inSeqOrder, inSeqOrderBySession } from "./seq-order.js";

const ids = (run_id = "r1") => ({ session_id: "s1", run_id });
const session = (seq: number, attempt = 1, run = "r1"): RunEvent => ({ ...ids(run), seq, type: "session", agent_id: "a", attempt });
const delta = (seq: number, run = "r1"): RunEvent => ({ ...ids(run), seq, type: "delta", text: `t${seq}` });
const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
const done = (seq: number, run = "r1"): RunEvent => ({ ...ids(run), seq, type: "done", response: "ok", iterations: 1, usage, usage_by_call: [], session_usage: usage });
const label = (event: RunEvent) => `${event.run_id === "r1" ? "" : `${event.run_id}:`}${event.type}${event.seq}`;

async function ordered(events: RunEvent[]): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of inSeqOrder((async function* () { yield* events; })())) seen.push(label(event));
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

  it("holds an event stored before the turn's first, session, event until it comes", async () => {
    expect(await ordered([delta(1), session(0), done(2)])).toEqual(["session0", "delta1", "done2"]);
  });

  it("gives what is held, in order, when the stream goes quiet before the turn's end", async () => {
    expect(await ordered([session(0), delta(3), delta(2)])).toEqual(["session0", "delta2", "delta3"]);
  });
});

/** Events given one by one, each after `gapMs` (0: all at once); the source then stays open until `openMs` has passed. */
async function* paced(events: RunEvent[], gapMs = 0, openMs = 0): AsyncGenerator<RunEvent> {
  for (const event of events) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    yield event;
  }
  if (openMs > 0) await new Promise((resolve) => setTimeout(resolve, openMs));
}

async function watched(source: AsyncIterable<RunEvent>, options: { fromTurnStart: boolean; holdMs?: number }, stopAfter = Infinity): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of inSeqOrderBySession(source, { holdMs: 60_000, ...options })) {
    seen.push(label(event));
    if (seen.length >= stopAfter) break;
  }
  return seen;
}

describe("a session's watched events in seq order, turn after turn", () => {
  it("puts each turn's events back in order and goes on with the next turn", async () => {
    const events = [session(0), delta(2), delta(1), done(3), session(0, 1, "r2"), done(2, "r2"), delta(1, "r2")];
    expect(await watched(paced(events), { fromTurnStart: true })).toEqual(["session0", "delta1", "delta2", "done3", "r2:session0", "r2:delta1", "r2:done2"]);
  });

  it("gives what a turn still holds when the next turn begins, and drops late copies of an ended turn", async () => {
    const events = [session(0), delta(2), session(0, 1, "r2"), delta(2), done(1, "r2")];
    expect(await watched(paced(events), { fromTurnStart: true })).toEqual(["session0", "delta2", "r2:session0", "r2:done1"]);
  });

  it("joins a turn already under way at its first event seen, but reads a later turn from its start", async () => {
    const events = [delta(5), delta(6), done(7), delta(1, "r2"), session(0, 1, "r2"), done(2, "r2")];
    expect(await watched(paced(events), { fromTurnStart: false })).toEqual(["delta5", "delta6", "done7", "r2:session0", "r2:delta1", "r2:done2"]);
  });

  it("lets held events out after holdMs while the watch stays open, without waiting for the source to end", async () => {
    let sourceEnded = false;
    const source = (async function* () {
      yield* paced([session(0), delta(2), delta(3)], 0, 60_000);
      sourceEnded = true;
    })();
    const seen = await watched(source, { fromTurnStart: true, holdMs: 100 }, 3);
    expect(seen).toEqual(["session0", "delta2", "delta3"]);
    // the source was still open (for a minute): the held events came out because of holdMs, not its end
    expect(sourceEnded).toBe(false);
  });
});
