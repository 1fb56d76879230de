import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger, subjects } from "@agent-orchestrator/shared";
import { startRun } from "./run-client.js";

let connection: NatsConnection;
const prefix = `rc${randomUUID().slice(0, 8)}.`;
const stream = `RUN_REQUESTS_${prefix.slice(0, -1)}`;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  const manager = await connection.jetstreamManager();
  await manager.streams.add({ name: stream, subjects: [`${prefix}${subjects.runRequest(">")}`] });
});

afterAll(async () => {
  await (await connection.jetstreamManager()).streams.delete(stream);
  await connection.drain();
});

/** A turn nobody takes, with `counts` as the successive answers to "how many orchestrators run". */
function unpickedTurn(counts: number[]) {
  const asked: number[] = [];
  return {
    asked,
    run: startRun(
      {
        connection,
        logger: createLogger("run-client-test", "silent"),
        subjectPrefix: prefix,
        pickupTimeoutMs: 600,
        idleTimeoutMs: 5_000,
        countOrchestrators: async () => {
          const count = counts[Math.min(asked.length, counts.length - 1)] ?? 0;
          asked.push(count);
          return count;
        },
      },
      { run_id: randomUUID(), session_id: randomUUID(), new_session: true, agent_id: "a", message: "hi", owner: "local" },
    ),
  };
}

describe("a queued turn nobody takes", () => {
  it("answers OVERLOADED, not 'no orchestrator', when orchestrators answer but are all busy", async () => {
    const { run } = unpickedTurn([1]);
    await expect(run).rejects.toMatchObject({ code: "OVERLOADED" });
  });

  it("does not claim no orchestrator runs on one missed ping of a busy one", async () => {
    const { run, asked } = unpickedTurn([0, 1]);
    await expect(run).rejects.toMatchObject({ code: "OVERLOADED" });
    expect(asked.slice(0, 2)).toEqual([0, 1]);
  });

  it("says no orchestrator is running when two pings in a row get no answer", async () => {
    const { run } = unpickedTurn([0]);
    await expect(run).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "No orchestrator is running to take the turn" });
  });
});
