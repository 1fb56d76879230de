import { ErrorCode, NatsError } from "nats";
import { describe, expect, it, vi } from "vitest";
import { natsRetryDelay, retryNats, retryWhileLeaderless } from "./nats-retry.js";
import { settleOnFakeClock as settle, useRetryTestClock } from "../../testing/retry-test-clock.js";

const noResponders = () => NatsError.errorForCode(ErrorCode.NoResponders);
const timeout = () => NatsError.errorForCode(ErrorCode.Timeout);

/** An operation that fails with `failures` in turn, then answers "ok"; it records when each try came (fake time). */
function scripted(failures: Array<() => Error>) {
  const triedAt: number[] = [];
  const operation = (attempt: number) => {
    triedAt.push(Date.now());
    const failure = failures[attempt - 1];
    return failure ? Promise.reject(failure()) : Promise.resolve("ok");
  };
  return { operation, triedAt };
}

useRetryTestClock();

describe("natsRetryDelay", () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000],
    [12, 1_000],
  ])("before try %i + 1 pauses up to %i ms", (attempt, ceiling) => {
    expect(natsRetryDelay(attempt, {})).toBe(ceiling);
  });

  it("takes off at most half of the pause at random", () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    expect(natsRetryDelay(3, { firstDelayMs: 50, maxDelayMs: 150 })).toBe(75);
  });
});

describe("retryNats", () => {
  it("tries a failure it names again, with doubling pauses, until the operation succeeds", async () => {
    const { operation, triedAt } = scripted([noResponders, noResponders, noResponders]);
    const start = Date.now();
    expect(await settle(retryNats(operation, { retryOn: ["no-responders"], budgetMs: 10_000 }))).toEqual({ value: "ok" });
    expect(triedAt.map((at) => at - start)).toEqual([0, 100, 300, 700]);
  });

  it("throws a failure it does not name at once", async () => {
    const { operation, triedAt } = scripted([timeout]);
    const { error } = await settle(retryNats(operation, { retryOn: ["no-responders", "no-leader"], budgetMs: 10_000 }));
    expect((error as NatsError).code).toBe(ErrorCode.Timeout);
    expect(triedAt).toHaveLength(1);
  });

  it("throws the last failure when the next pause would end past the budget", async () => {
    const { operation, triedAt } = scripted(Array.from({ length: 20 }, () => noResponders));
    const start = Date.now();
    const { error } = await settle(retryNats(operation, { retryOn: ["no-responders"], budgetMs: 2_000 }));
    expect((error as NatsError).code).toBe(ErrorCode.NoResponders);
    // 0, 100, 300, 700, 1500; a pause of 1000 more would end at 2500
    expect(triedAt.map((at) => at - start)).toEqual([0, 100, 300, 700, 1_500]);
  });

  it("makes at most maxAttempts tries", async () => {
    const { operation, triedAt } = scripted([timeout, timeout, timeout, timeout, timeout]);
    const { error } = await settle(retryNats(operation, { retryOn: ["timeout"], budgetMs: 60_000, maxAttempts: 4 }));
    expect((error as NatsError).code).toBe(ErrorCode.Timeout);
    expect(triedAt).toHaveLength(4);
  });

  it("stops in a pause when the signal aborts, with its reason, and tries no more", async () => {
    const { operation, triedAt } = scripted(Array.from({ length: 20 }, () => noResponders));
    const controller = new AbortController();
    const running = settle(retryNats(operation, { retryOn: ["no-responders"], budgetMs: 60_000, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(150);
    controller.abort(new Error("cancelled by the user"));
    expect(((await running).error as Error).message).toBe("cancelled by the user");
    expect(triedAt).toHaveLength(2);
  });

  it("tells of each failure it tries again, with its kind and pause", async () => {
    const { operation } = scripted([noResponders, timeout]);
    const heard: unknown[] = [];
    await settle(retryNats(operation, { retryOn: ["no-responders", "timeout"], budgetMs: 10_000, onRetry: ({ kind, attempt, delayMs }) => heard.push([kind, attempt, delayMs]) }));
    expect(heard).toEqual([
      ["no-responders", 1, 100],
      ["timeout", 2, 200],
    ]);
  });
});

describe("retryWhileLeaderless", () => {
  it("repeats a request nobody took, and never one that timed out (it may have landed)", async () => {
    const leaderless = scripted([noResponders, noResponders]);
    expect(await settle(retryWhileLeaderless(() => leaderless.operation(leaderless.triedAt.length + 1)))).toEqual({ value: "ok" });
    expect(leaderless.triedAt).toHaveLength(3);
    const timedOut = scripted([timeout]);
    expect((await settle(retryWhileLeaderless(() => timedOut.operation(timedOut.triedAt.length + 1)))).error).toBeInstanceOf(NatsError);
    expect(timedOut.triedAt).toHaveLength(1);
  });
});
