/**
 * The spending totals against a real JetStream KV bucket: two `SpendingStore`s over one bucket stand for two
 * orchestrator replicas counting turns at the same moment.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Usage } from "@agent-orchestrator/shared/wire";
import { scratchStreams } from "../testing/scratch-streams.js";
import { SpendingStore, type SpentTurn } from "./spending-store.js";

const scratch = scratchStreams();

async function twoReplicas() {
  const bucket = `spending_${randomUUID().slice(0, 8)}`;
  const stream = scratch.track(`KV_${bucket}`);
  return { first: await SpendingStore.open(scratch.connection(), bucket), second: await SpendingStore.open(scratch.connection(), bucket), stream };
}

const usage = (cost: number): Usage => ({ prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, cached_prompt_tokens: 400, cost });
const turn = (runKey: string, overrides: Partial<SpentTurn> = {}): SpentTurn => ({
  runKey,
  projectId: "p1",
  user: "ada@example.com",
  agentId: "bmm/analyst",
  usage: usage(0.25),
  turns: 1,
  at: new Date("2026-11-25T10:00:00Z"),
  ...overrides,
});

describe("SpendingStore", () => {
  it("case 214: loses no increment when two replicas count twenty turns of one project and one user at once", async () => {
    const { first, second } = await twoReplicas();
    await Promise.all(Array.from({ length: 20 }, (_unused, index) => (index % 2 === 0 ? first : second).record(turn(`run-${index}:1`))));
    const month = await first.projectMonth("p1", "2026-11");
    expect(month.totals).toEqual({ prompt_tokens: 20_000, cached_prompt_tokens: 8_000, completion_tokens: 2_000, cost: 5, turns: 20 });
    expect(month.byAgent["bmm/analyst"]?.turns).toBe(20);
    const user = await second.userPeriods("ada@example.com", "2026-11-25", "2026-11");
    expect(user.day.cost).toBe(5);
    expect(user.month.turns).toBe(20);
  });

  it("case 214: writes the turns one replica counts at once in one compare-and-set per key, each entry once", async () => {
    const { first, second, stream } = await twoReplicas();
    expect(await second.record(turn("run-0:1"))).toBe(true);
    const writes = async () => (await (await scratch.connection().jetstreamManager()).streams.info(stream)).state.last_seq;
    const before = await writes();
    // sixteen turns of one project and user end together on one replica; the first was counted by the other replica
    const recorded = await Promise.all(Array.from({ length: 16 }, (_unused, index) => first.record(turn(`run-${index}:1`))));
    expect(recorded).toEqual([false, ...Array.from({ length: 15 }, () => true)]);
    // the project's month and the user's key, once each (one write per turn and key, 30, before group commit)
    expect((await writes()) - before).toBe(2);
    expect((await second.projectMonth("p1", "2026-11")).totals).toMatchObject({ cost: 4, turns: 16 });
    expect((await second.userPeriods("ada@example.com", "2026-11-25", "2026-11")).day).toMatchObject({ cost: 4, turns: 16 });
  });

  it("case 214: counts a delivery once however often it is recorded, and each delivery of a turn that ran twice", async () => {
    const { first, second } = await twoReplicas();
    expect(await first.record(turn("r1:1"))).toBe(true);
    expect(await second.record(turn("r1:1"))).toBe(false);
    expect(await first.record(turn("r1:1"))).toBe(false);
    // its orchestrator died after counting it and the turn ran again: the second delivery was paid for too
    expect(await second.record(turn("r1:2"))).toBe(true);
    expect((await first.projectMonth("p1", "2026-11")).totals.turns).toBe(2);
    expect((await first.userPeriods("ada@example.com", "2026-11-25", "2026-11")).day.turns).toBe(2);
  });

  it("case 214: counts over what another replica wrote since this one last wrote the key", async () => {
    const { first, second } = await twoReplicas();
    // each replica writes over the entry it last saw; the first's is stale after the second's write
    for (const [store, runKey] of [[first, "a:1"], [second, "b:1"], [first, "c:1"], [first, "d:1"], [second, "e:1"]] as const) {
      expect(await store.record(turn(runKey))).toBe(true);
    }
    expect(await first.record(turn("b:1"))).toBe(false);
    expect((await second.projectMonth("p1", "2026-11")).totals).toMatchObject({ cost: 1.25, turns: 5 });
    expect((await first.userPeriods("ada@example.com", "2026-11-25", "2026-11")).month).toMatchObject({ cost: 1.25, turns: 5 });
  });

  it("keeps each UTC period apart: a project's months, a user's days and months, by agent", async () => {
    const { first } = await twoReplicas();
    await first.record(turn("a:1", { at: new Date("2026-10-31T23:59:59Z"), usage: usage(1) }));
    await first.record(turn("b:1", { at: new Date("2026-11-01T00:00:00Z"), usage: usage(2), agentId: "bmm/pm" }));
    await first.record(turn("c:1", { at: new Date("2026-11-01T08:00:00Z"), usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
    const months = await first.projectMonths("p1");
    expect(Object.fromEntries([...months].map(([period, totals]) => [period, totals.cost]))).toEqual({ "2026-10": 1, "2026-11": 2 });
    expect((await first.projectMonth("p1", "2026-11")).byAgent).toEqual({
      "bmm/pm": { prompt_tokens: 1000, cached_prompt_tokens: 400, completion_tokens: 100, cost: 2, turns: 1 },
      // a route without a price: tokens counted, no cost
      "bmm/analyst": { prompt_tokens: 10, cached_prompt_tokens: 0, completion_tokens: 5, cost: 0, turns: 1 },
    });
    expect(await first.userPeriods("ada@example.com", "2026-10-31", "2026-10")).toMatchObject({ day: { cost: 1 }, month: { cost: 1 } });
    expect(await first.userPeriods("ada@example.com", "2026-11-01", "2026-11")).toMatchObject({ day: { cost: 2, turns: 2 }, month: { cost: 2 } });
    expect((await first.userPeriods("bob", "2026-11-01", "2026-11")).day.turns).toBe(0);
  });

  it("case 214: counts several entries at once, each in its own period, those a key has already only once", async () => {
    const { first, second } = await twoReplicas();
    expect(await second.record(turn("r1:1:1", { turns: 0 }))).toBe(true);
    // a turn's end with its calls, the first already counted by another replica, the last in the next month
    const entries = [
      turn("r1:1:1", { turns: 0 }),
      turn("r1:1:2", { turns: 0, usage: usage(0.5) }),
      turn("r1:1", { turns: 1, usage: usage(0), at: new Date("2026-12-01T00:00:01Z") }),
    ];
    expect(await first.recordAll(entries)).toBe(true);
    expect(await second.recordAll(entries)).toBe(false);
    expect((await first.projectMonth("p1", "2026-11")).totals).toMatchObject({ cost: 0.75, turns: 0 });
    expect((await second.projectMonth("p1", "2026-12")).totals).toMatchObject({ cost: 0, turns: 1 });
    expect(await first.userPeriods("ada@example.com", "2026-11-25", "2026-11")).toMatchObject({ day: { cost: 0.75, turns: 0 }, month: { cost: 0.75 } });
    expect(await first.userPeriods("ada@example.com", "2026-12-01", "2026-12")).toMatchObject({ day: { turns: 1 }, month: { turns: 1 } });
  });
});
