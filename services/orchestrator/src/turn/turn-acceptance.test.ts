import { describe, expect, it } from "vitest";
import { decideTurnAcceptance, type TurnAcceptance, type TurnAcceptanceInput } from "./turn-acceptance.js";

const lifetime = { TURN_TIMEOUT_MS: 120_000, RUN_ACK_WAIT_MS: 30_000, RUN_MAX_DELIVER: 3 };
const now = Date.parse("2026-11-22T12:00:00.000Z");
/** started a minute ago: may still be running somewhere */
const recently = "2026-11-22T11:59:00.000Z";
/** started longer ago than a turn and every redelivery of it can live */
const longAgo = "2026-11-22T11:00:00.000Z";

type Session = TurnAcceptanceInput["session"];
const idle = (last_run_id: string | null): Session => ({ status: "completed", run_id: null, last_run_id, run_started_at: null });
const running = (run_id: string, run_started_at: string | null = recently): Session => ({ status: "running", run_id, last_run_id: run_id, run_started_at });

// each row: the request's run (always "r1"), its delivery, the session as read → the decision
const table: Array<{ case: string; attempt: number; session: Session; decision: TurnAcceptance }> = [
  { case: "a new turn in an idle session", attempt: 1, session: idle("r0"), decision: "accept" },
  { case: "the first turn of a session that has none yet", attempt: 1, session: idle(null), decision: "accept" },
  { case: "a new turn after a failed one", attempt: 1, session: { ...idle("r0"), status: "failed" }, decision: "accept" },
  { case: "a new turn after a cancelled one", attempt: 1, session: { ...idle("r0"), status: "cancelled" }, decision: "accept" },
  { case: "a second turn while another runs", attempt: 1, session: running("r0"), decision: "busy" },
  { case: "a redelivered second turn while another runs", attempt: 2, session: running("r0"), decision: "busy" },
  { case: "a new turn while another runs that has outlived every redelivery", attempt: 1, session: running("r0", longAgo), decision: "accept" },
  { case: "a new turn while another runs with no start time", attempt: 1, session: running("r0", null), decision: "accept" },
  { case: "a redelivery of this turn, which has ended", attempt: 2, session: idle("r1"), decision: "drop-ended" },
  { case: "a first delivery of this turn, which has ended", attempt: 1, session: idle("r1"), decision: "drop-ended" },
  { case: "a redelivery of this turn, which failed", attempt: 2, session: { ...idle("r1"), status: "failed" }, decision: "drop-ended" },
  { case: "a first delivery again of this turn, still running", attempt: 1, session: running("r1"), decision: "drop-still-running" },
  { case: "a redelivery of this turn, whose orchestrator died (a takeover)", attempt: 2, session: running("r1"), decision: "accept" },
  { case: "a later redelivery of this turn, whose orchestrators died", attempt: 3, session: running("r1", longAgo), decision: "accept" },
  { case: "a new turn while the chat waits for a tool call's decision", attempt: 1, session: { ...idle("r0"), status: "awaiting_approval" }, decision: "busy" },
  { case: "a redelivery of this turn, which paused for a decision", attempt: 2, session: { ...idle("r1"), status: "awaiting_approval" }, decision: "drop-ended" },
];

describe("decideTurnAcceptance", () => {
  it.each(table)("$case (delivery $attempt) → $decision", ({ attempt, session, decision }) => {
    expect(decideTurnAcceptance({ runId: "r1", attempt, session, lifetime, now })).toBe(decision);
  });
});
