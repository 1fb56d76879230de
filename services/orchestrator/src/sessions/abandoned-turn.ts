import type { SessionRecord } from "@agent-orchestrator/shared/wire";
import type { OrchestratorConfig } from "../config.js";

/** The limits that bound how long a turn can live, counting every redelivery of its request. */
export type TurnLifetime = Pick<OrchestratorConfig, "TURN_TIMEOUT_MS" | "RUN_ACK_WAIT_MS" | "RUN_MAX_DELIVER">;

/**
 * A running turn older than its wall-clock limit plus every redelivery's ack wait cannot still be
 * running anywhere: its orchestrators died and the work queue gave up on it. The session must not stay
 * busy forever, so a new turn may take it (turn-acceptance.ts), and its project may be deleted.
 */
export function isAbandoned(record: Pick<SessionRecord, "run_started_at">, lifetime: TurnLifetime, now = Date.now()): boolean {
  if (!record.run_started_at) return true;
  const longest = lifetime.TURN_TIMEOUT_MS + lifetime.RUN_ACK_WAIT_MS * (lifetime.RUN_MAX_DELIVER + 1);
  return now - Date.parse(record.run_started_at) > longest;
}
