import type { SessionRecord } from "@agent-orchestrator/shared/wire";
import { isAbandoned, type TurnLifetime } from "../sessions/abandoned-turn.js";

/**
 * What one delivery of a turn request does with its session: `accept` marks it running (a new turn, or the
 * takeover of a turn whose orchestrator died), `busy` refuses it with SESSION_BUSY, and the two drops end
 * the delivery without a word, since the turn's client hears from the delivery that runs or ran it.
 */
export type TurnAcceptance = "accept" | "busy" | "drop-ended" | "drop-still-running";

export interface TurnAcceptanceInput {
  /** the run the request asks for */
  runId: string;
  /** the work queue's count of this request's deliveries: 1 for the first, more once an orchestrator died holding it */
  attempt: number;
  /** the session's head as read, before this delivery marks it */
  session: Pick<SessionRecord, "status" | "run_id" | "last_run_id" | "run_started_at">;
  lifetime: TurnLifetime;
  now: number;
}

/**
 * The rule of one running turn per session (ARCHITECTURE.md "One chat turn", step 3) and the redeliveries it
 * must tell apart from a second turn. Pure, so every rule is pinned by a table test; the caller reads the
 * session and writes the decision with compare-and-set, so two deliveries that both decide `accept` from the
 * same head still mark the session once.
 */
export function decideTurnAcceptance({ runId, attempt, session, lifetime, now }: TurnAcceptanceInput): TurnAcceptance {
  // its acknowledgement was lost with a NATS server: the client has had the final event, and running it again
  // would only add the turn to the session twice
  if (session.last_run_id === runId && session.run_id === null) return "drop-ended";
  // a turn paused at a tool call that waits for a decision: the chat goes on only from that decision (turn-resume.ts)
  if (session.status === "awaiting_approval") return "busy";
  if (session.status === "running" && session.run_id === runId) {
    // a first delivery of a running turn: a consumer leader elected after a NATS server was lost delivered it
    // again before it knew of the first delivery. The orchestrator that has it is alive (a dead one's turn
    // comes back as a redelivery), so taking it over would run the turn twice
    return attempt === 1 ? "drop-still-running" : "accept";
  }
  // another turn runs, unless it has outlived every delivery the work queue could make of it
  if (session.status === "running" && !isAbandoned(session, lifetime, now)) return "busy";
  return "accept";
}
