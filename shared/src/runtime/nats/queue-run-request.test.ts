import { ErrorCode, NatsError, type NatsConnection } from "nats";
import { describe, expect, it, vi } from "vitest";
import { AppError } from "../app-error.js";
import { queueRunRequest } from "./queue-run-request.js";
import { settleOnFakeClock, useRetryTestClock } from "../../testing/retry-test-clock.js";

const noResponders = () => NatsError.errorForCode(ErrorCode.NoResponders);
const timeout = () => NatsError.errorForCode(ErrorCode.Timeout);
function streamFull(): NatsError {
  // what a publish into a full RUN_REQUESTS gets: status 503 too, but not "no responders"
  const error = new NatsError("maximum bytes exceeded", ErrorCode.JetStreamNotEnabled);
  error.api_error = { code: 503, err_code: 10077, description: "maximum bytes exceeded" };
  return error;
}

/**
 * A connection whose JetStream publishes fail with `failures` in turn, then are acknowledged; `cluster` says
 * whether the server it reached is part of a cluster. Only what queueRunRequest touches is there.
 */
function connectionThatFails(failures: Array<() => Error>, cluster: boolean) {
  const publishes: string[] = [];
  const connection = {
    info: cluster ? { cluster: "c1" } : {},
    jetstream: () => ({
      publish: (subject: string) => {
        const failure = failures[publishes.push(subject) - 1];
        return failure ? Promise.reject(failure()) : Promise.resolve({ stream: "RUN_REQUESTS", seq: 1, duplicate: false });
      },
    }),
  } as unknown as NatsConnection;
  return { connection, publishes };
}

/** The outcome of queueing on `connection`: "queued", or the error it failed with. */
async function queued(connection: NatsConnection, signal?: AbortSignal): Promise<unknown> {
  const outcome = await settleOnFakeClock(
    queueRunRequest(connection, "agent.run.request.s1", new Uint8Array(), { msgID: "run1", ...(signal ? { signal } : {}) }),
  );
  return "error" in outcome ? outcome.error : "queued";
}

useRetryTestClock();

describe("queueRunRequest", () => {
  it("waits out a leader election in a cluster: no responders and timeouts are published again", async () => {
    const { connection, publishes } = connectionThatFails([noResponders, timeout, noResponders], true);
    expect(await queued(connection)).toBe("queued");
    expect(publishes).toHaveLength(4);
  });

  it("says no orchestrator has made the queue when a single server has no stream, at once", async () => {
    const { connection, publishes } = connectionThatFails([noResponders], false);
    const error = await queued(connection);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toMatch(/No orchestrator has set up the run queue/);
    expect(publishes).toHaveLength(1);
  });

  it("publishes a timed-out turn four times in all on a single server", async () => {
    const { connection, publishes } = connectionThatFails(Array.from({ length: 10 }, () => timeout), false);
    expect(((await queued(connection)) as AppError).message).toBe("The turn could not be queued");
    expect(publishes).toHaveLength(4);
  });

  it("refuses a turn into a full queue at once, in a cluster too, and does not blame a missing orchestrator", async () => {
    const { connection, publishes } = connectionThatFails([streamFull], true);
    const error = (await queued(connection)) as AppError;
    expect([error.code, error.message]).toEqual(["SERVICE_UNAVAILABLE", "The turn could not be queued"]);
    expect(publishes).toHaveLength(1);
  });

  it("stops publishing again when its signal aborts (a cancelled parent), with the signal's reason", async () => {
    const { connection, publishes } = connectionThatFails(Array.from({ length: 50 }, () => noResponders), true);
    const controller = new AbortController();
    const outcome = queued(connection, controller.signal);
    await vi.advanceTimersByTimeAsync(150);
    controller.abort(new Error("the parent turn was cancelled"));
    expect(((await outcome) as Error).message).toBe("the parent turn was cancelled");
    expect(publishes).toHaveLength(2);
  });
});
