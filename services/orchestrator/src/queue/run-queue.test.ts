import { randomUUID } from "node:crypto";
import { AckPolicy, nanos, RetentionPolicy } from "nats";
import { describe, expect, it } from "vitest";
import { createLogger, encodeJson } from "@agent-orchestrator/shared/runtime";
import { type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { startRunQueue, type RunQueue } from "./run-queue.js";
import { scratchStreams } from "../testing/scratch-streams.js";

const logger = createLogger("run-queue-test", "silent");
const scratch = scratchStreams();

/** A work-queue stream with one durable consumer, like the run requests, and a way to queue turns on it. */
async function workQueue() {
  const name = `RUNQ_${randomUUID().slice(0, 8)}`;
  scratch.track(name);
  const manager = await scratch.connection().jetstreamManager();
  await manager.streams.add({ name, subjects: [`${name}.>`], retention: RetentionPolicy.Workqueue });
  await manager.consumers.add(name, { durable_name: "orchestrators", ack_policy: AckPolicy.Explicit, ack_wait: nanos(30_000) });
  const queue = async (count: number) => {
    for (let index = 0; index < count; index++) {
      const request: RunStartRequest = {
        run_id: randomUUID(),
        session_id: randomUUID(),
        new_session: true,
        agent_id: "a",
        message: `turn ${index}`,
        owner: "o",
        expires_at: Date.now() + 60_000,
      };
      await scratch.connection().jetstream().publish(`${name}.run`, encodeJson(request));
    }
  };
  const consumer = () => scratch.connection().jetstream().consumers.get(name, "orchestrators");
  const pending = async () => (await manager.consumers.info(name, "orchestrators")).num_pending;
  const openPulls = async () => (await manager.consumers.info(name, "orchestrators")).num_waiting;
  const info = () => manager.consumers.info(name, "orchestrators");
  return { queue, consumer, pending, openPulls, info };
}

/** Resolves when `predicate` holds, polling every 10 ms. */
async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("run queue", () => {
  it("spreads queued turns over the replicas pulling from one consumer, not all to the one that pulled first", async () => {
    const { queue, consumer, openPulls } = await workQueue();
    const ran: Array<{ replica: number; message: string }> = [];
    const queues: RunQueue[] = [];
    for (const replica of [0, 1]) {
      queues.push(
        startRunQueue({
          consumer: await consumer(),
          concurrency: 32,
          ackWaitMs: 30_000,
          logger,
          run: async (request) => {
            ran.push({ replica, message: request.message });
            await new Promise((resolve) => setTimeout(resolve, 100));
          },
        }),
      );
    }
    // both replicas' pulls are waiting before the first turn comes
    await until(async () => (await openPulls()) === 2, "both replicas' pulls");
    await queue(40);
    await until(() => ran.length === 40, "40 turns");
    await Promise.all(queues.map((runQueue) => runQueue.stop()));
    const byReplica = [0, 1].map((replica) => ran.filter((turn) => turn.replica === replica).length);
    expect(byReplica[0]).toBeGreaterThanOrEqual(10);
    expect(byReplica[1]).toBeGreaterThanOrEqual(10);
    expect(new Set(ran.map((turn) => turn.message)).size).toBe(40);
  });

  it("never holds more turns than it has slots: the rest stay queued for another replica", async () => {
    const { queue, consumer, pending, info } = await workQueue();
    const release: Array<() => void> = [];
    // set each time its pull loop, every slot busy, waits for one to free without asking for more
    let full = false;
    const runQueue = startRunQueue({
      consumer: await consumer(),
      concurrency: 2,
      ackWaitMs: 30_000,
      logger,
      run: () => new Promise<void>((resolve) => release.push(resolve)),
      onFull: () => (full = true),
    });
    await queue(5);
    await until(() => release.length === 2, "two turns running");
    // its pull is closed (it asks for nothing more while full): the server has handed out two and holds three
    await until(async () => (await info()).num_waiting === 0, "its pull to close");
    expect(await info()).toMatchObject({ num_ack_pending: 2, num_pending: 3, num_waiting: 0 });
    expect(release).toHaveLength(2);

    // a lent slot runs one more at once; a freed slot another
    const giveBack = runQueue.lendSlot();
    await until(() => release.length === 3, "the lent slot's turn");
    full = false;
    release[0]?.();
    await until(() => release.length === 4, "the freed slot's turn");
    await until(() => full, "its pull loop to wait with three running");
    // given back: a slot that frees now is not refilled, as two still run of the two it has; the loop
    // decides so when it waits again (a refill would have pulled, and taken the fifth turn, first)
    giveBack();
    full = false;
    release[1]?.();
    await until(() => full, "its pull loop to wait with two running");
    expect(release).toHaveLength(4);
    expect(await pending()).toBe(1);
    release[2]?.();
    await until(() => release.length === 5, "the last turn");
    for (const done of release) done();
    await runQueue.stop();
  });

  it("stops once its pull has ended, hands back what came during the stop, and leaves it for the next replica", async () => {
    const { queue, consumer, openPulls, info } = await workQueue();
    const ran: string[] = [];
    const first = startRunQueue({ consumer: await consumer(), concurrency: 4, ackWaitMs: 30_000, logger, run: async (request) => void ran.push(`first ${request.message}`) });
    await until(async () => (await openPulls()) === 1, "its pull");
    const stopped = first.stop();
    // queued while its pull is still open at the server
    await queue(1);
    await stopped;
    // stopped, it has no pull open at the server (nothing more can be handed to it), and the turn that came
    // during the stop was handed back unrun: delivered once, not acknowledged, waiting to be redelivered (a stop
    // that waited on a pull longer than its 2 s expiry would outlast the test's timeout)
    expect(await info()).toMatchObject({ num_waiting: 0, num_ack_pending: 1, num_redelivered: 0, num_pending: 0 });
    expect(ran).toEqual([]);
    const second = startRunQueue({ consumer: await consumer(), concurrency: 4, ackWaitMs: 30_000, logger, run: async (request) => void ran.push(`second ${request.message}`) });
    await until(() => ran.length === 1, "the handed-back turn", 10_000);
    await second.stop();
    expect(ran).toEqual(["second turn 0"]);
  });
});
