import { describe, expect, it } from "vitest";
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { WatchedRuns } from "./watched-runs.js";

const delta = (runId: string, seq: number): RunEvent => ({ type: "delta", session_id: "s1", run_id: runId, seq, text: `${seq}` });
const decided = (runId: string, seq: number): RunEvent => ({ type: "approval_decided", session_id: "s1", run_id: runId, seq, approval_id: runId, decision: "approve", by: "bob" });
const required = (runId: string, seq: number): RunEvent => ({ type: "approval_required", session_id: "s1", run_id: runId, seq, approval_id: "a2", call_id: "c2", tool: "run_command", arguments: { command: "ls" }, reason: "asks", expires_at: "2030-01-01T00:00:00Z" });
const error = (runId: string, seq: number): RunEvent => ({ type: "error", session_id: "s1", run_id: runId, seq, error: { code: "CANCELLED", message: "Stopped" } });

async function collect(events: AsyncGenerator<RunEvent>): Promise<number[]> {
  const seqs: number[] = [];
  for await (const event of events) seqs.push(event.seq);
  return seqs;
}

describe("WatchedRuns", () => {
  it("plays a run from its first event, the ones that came before it was claimed included, until it pauses again", async () => {
    const runs = new WatchedRuns();
    runs.add(decided("a1", 0));
    runs.add(delta("a1", 1));
    const played = collect(runs.claim("a1")(new AbortController().signal));
    runs.add(delta("a1", 2));
    runs.add(required("a1", 3));
    runs.add(delta("a1", 4));
    expect(await played).toEqual([0, 1, 2, 3]);
  });

  it("keeps a claimed run that ends before the page starts playing it", async () => {
    const runs = new WatchedRuns();
    runs.add(decided("a1", 0));
    const play = runs.claim("a1");
    runs.add(delta("a1", 1));
    runs.add(error("a1", 2));
    expect(await collect(play(new AbortController().signal))).toEqual([0, 1, 2]);
  });

  it("drops an event a replay repeats, and forgets a run nobody claimed once it ends", async () => {
    const runs = new WatchedRuns();
    expect(runs.add(delta("r1", 0))).toBe(true);
    expect(runs.add(delta("r1", 0))).toBe(false);
    runs.add(error("r1", 1));
    expect(await collect(runs.claim("r1")(new AbortController().signal))).toEqual([]);
  });

  it("ends a run being played when the page stops playing it or the watch closes", async () => {
    const runs = new WatchedRuns();
    runs.add(decided("a1", 0));
    const controller = new AbortController();
    const stopped = collect(runs.claim("a1")(controller.signal));
    controller.abort();
    expect(await stopped).toEqual([0]);

    runs.add(decided("a2", 0));
    const closed = collect(runs.claim("a2")(new AbortController().signal));
    runs.close();
    expect(await closed).toEqual([0]);
  });
});
