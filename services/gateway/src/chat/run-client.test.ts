import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger, encodeJson } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, RunEvent, subjects, zeroUsage } from "@agent-orchestrator/shared/wire";
import { startRun, type NewRun, type RunClientOptions } from "./run-client.js";

let connection: NatsConnection;
const prefix = `rc${randomUUID().slice(0, 8)}.`;
const stream = `RUN_REQUESTS_${prefix.slice(0, -1)}`;
const eventsStream = jetStreamNames(prefix).runEvents;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  const manager = await connection.jetstreamManager();
  await manager.streams.add({ name: stream, subjects: [`${prefix}${subjects.runRequest(">")}`] });
  await manager.streams.add({ name: eventsStream, subjects: [`${prefix}${subjects.runEventsAll}`] });
});

afterAll(async () => {
  const manager = await connection.jetstreamManager();
  await manager.streams.delete(stream);
  await manager.streams.delete(eventsStream);
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

/** A turn as an orchestrator runs it: its events stored in RUN_EVENTS (the stream's publish reaches live subscribers too). */
function orchestratorOf(run: NewRun) {
  const subject = prefix + subjects.runEvents(run.session_id, run.run_id);
  const base = { session_id: run.session_id, run_id: run.run_id };
  const events: RunEvent[] = [
    { ...base, seq: 0, type: "session", agent_id: "a", project_id: "p", attempt: 1 },
    { ...base, seq: 1, type: "delta", text: "hel" },
    { ...base, seq: 2, type: "delta", text: "lo" },
    { ...base, seq: 3, type: "done", response: "hello", iterations: 1, usage: zeroUsage(), usage_by_call: [], session_usage: zeroUsage() },
  ].map((event) => RunEvent.parse(event));
  return {
    events,
    store: async (...seqs: number[]) => {
      for (const seq of seqs) await connection.jetstream().publish(subject, encodeJson(events[seq]));
    },
    /** resolves once the turn's request is queued: the gateway's subscription is in place before it */
    queued: async () => {
      const consumer = await connection.jetstream().consumers.get(stream, { filterSubjects: prefix + subjects.runRequest(run.session_id) });
      await consumer.next({ expires: 5_000 });
    },
  };
}

async function gatewayTurn(gateway: NatsConnection, run: NewRun) {
  const options: RunClientOptions = {
    connection: gateway,
    logger: createLogger("run-client-test", "silent"),
    subjectPrefix: prefix,
    pickupTimeoutMs: 5_000,
    idleTimeoutMs: 3_000,
    countOrchestrators: async () => 1,
  };
  const started = await startRun(options, run);
  const events: RunEvent[] = [];
  for await (const event of started.events) events.push(event);
  return events;
}

const newRun = (): NewRun => ({ run_id: randomUUID(), session_id: randomUUID(), new_session: true, agent_id: "a", message: "hi", owner: "local" });

describe("a live turn whose subscription missed events (docs/operations.md \"Known limits on nats-server 2.9\")", () => {
  it("gives a first event the subscription never heard, read from RUN_EVENTS, before the later ones: each once, in order", async () => {
    const gateway = await connect({ servers: inject("natsUrl") });
    try {
      const run = newRun();
      const orchestrator = orchestratorOf(run);
      // stored before the gateway listened, as while its connection was being re-made
      await orchestrator.store(0);
      const turn = gatewayTurn(gateway, run);
      await orchestrator.queued();
      await orchestrator.store(1, 2, 3);
      expect((await turn).map((event) => `${event.seq}:${event.type}`)).toEqual(["0:session", "1:delta", "2:delta", "3:done"]);
    } finally {
      await gateway.close();
    }
  });

  it("ends with the final event stored while its connection was re-made, where nothing came live after it", async () => {
    const gateway = await connect({ servers: inject("natsUrl") });
    try {
      const run = newRun();
      const orchestrator = orchestratorOf(run);
      // the last two stored before the gateway listened: live, the turn stops after seq 1 with no gap to see
      await orchestrator.store(2, 3);
      const turn = gatewayTurn(gateway, run);
      await orchestrator.queued();
      await orchestrator.store(0, 1);
      await gateway.reconnect();
      expect((await turn).map((event) => `${event.seq}:${event.type}`)).toEqual(["0:session", "1:delta", "2:delta", "3:done"]);
    } finally {
      await gateway.close();
    }
  });
});
