import { describe, expect, it } from "vitest";
import {
  fileStoreElectionWaitMs,
  leaderElectionWaitMs,
  longestLeaderElectionMs,
  runEventStoreBudgetMs,
  runEventWatchHoldMs,
  runLimitCeilingMs,
  scriptTimeoutDefaultMs,
  toolReplyWindowMs,
  toolTimeoutDefaultMs,
} from "./nats-wait-budgets.js";

describe("the waits that depend on each other across services", () => {
  it("wait out a whole leader election wherever a write is tried again", () => {
    for (const wait of [leaderElectionWaitMs, runEventStoreBudgetMs, fileStoreElectionWaitMs]) expect(wait).toBeGreaterThan(longestLeaderElectionMs);
  });

  it("hold a watch's events longer than the orchestrator re-sends a missing one", () => {
    expect(runEventWatchHoldMs).toBeGreaterThan(runEventStoreBudgetMs);
  });

  it("answer a script stopped at its limit, and a file write that waited out an election, before the orchestrator stops waiting", () => {
    expect(scriptTimeoutDefaultMs).toBeLessThan(toolTimeoutDefaultMs);
    expect(2 * fileStoreElectionWaitMs).toBeLessThan(toolTimeoutDefaultMs);
  });

  it("let a command or a script at its longest limit be answered within the tool-runner's reply permission", () => {
    expect(runLimitCeilingMs + toolTimeoutDefaultMs).toBeLessThanOrEqual(toolReplyWindowMs);
  });
});
