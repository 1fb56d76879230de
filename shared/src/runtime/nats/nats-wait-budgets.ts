/**
 * The waits that depend on each other across services, in one place so that one cannot be changed without
 * the other (nats-wait-budgets.test.ts checks each relation stated here).
 */

/** The longest JetStream leader election seen on nats-server 2.9 (an election timeout is 4–9 s). */
export const longestLeaderElectionMs = 9_000;

/**
 * How long a JetStream request nobody took is tried again before its caller is told: the orchestrator's
 * session, project and turn-slot writes, and the queueing of a turn (the gateway's and a subagent's). Longer
 * than `longestLeaderElectionMs`.
 */
export const leaderElectionWaitMs = 20_000;

/**
 * How long the orchestrator goes on re-sending a turn's event that `RUN_EVENTS` has not stored, counted
 * from its first send. Longer than `longestLeaderElectionMs`.
 */
export const runEventStoreBudgetMs = 30_000;

/**
 * How long the gateway's watch holds a turn's events back for a missing earlier one: a little more than
 * `runEventStoreBudgetMs`, after which the missing event never comes.
 */
export const runEventWatchHoldMs = runEventStoreBudgetMs + 5_000;

/** The orchestrator's default TOOL_TIMEOUT_MS: how long it waits for a tool-runner's answer. */
export const toolTimeoutDefaultMs = 30_000;

/**
 * How long a tool-runner's answer to one request may take: its NATS user may reply for this long
 * (`allow_responses` in deploy/nats/nats-server.conf, 11 min); a later answer is dropped.
 */
export const toolReplyWindowMs = 11 * 60_000;

/**
 * The longest COMMAND_TIMEOUT_MAX_MS and SCRIPT_TIMEOUT_MS may be. The orchestrator waits for a command or a script
 * its own limit plus TOOL_TIMEOUT_MS (docs/commands.md "How long the orchestrator waits"), which must end within
 * `toolReplyWindowMs` (the orchestrator refuses to start otherwise): this leaves the default TOOL_TIMEOUT_MS room.
 */
export const runLimitCeilingMs = 10 * 60_000;

/** The tool-runner's default SCRIPT_TIMEOUT_MS: below `toolTimeoutDefaultMs`, so a script stopped at its limit is still answered. */
export const scriptTimeoutDefaultMs = 25_000;

/**
 * How long the tool-runner's file store waits out an election while it writes, once for the content and the
 * index and once for the revision record: longer than `longestLeaderElectionMs`, and both together within
 * `toolTimeoutDefaultMs`, so the caller hears WRITE_FAILED rather than a timeout.
 */
export const fileStoreElectionWaitMs = 12_000;
