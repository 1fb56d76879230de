/**
 * The system the load runs against: the compose shape (two tool-runners, one of everything else), sized
 * for hundreds of turns at once. An orchestrator runs RUN_CONCURRENCY turns at a time (32 by default) and
 * a tool-runner answers BUSY above TOOL_CONCURRENCY calls in flight (64 by default): those are the first
 * two settings to size, and the load sets both above the turns it sends.
 */
import { loadResponder } from "./load-responder.js";
import { startFaultSystem, type FaultSystem } from "./fault-system.js";

export function startLoadSystem(turns: number, latencyMs: number): Promise<FaultSystem> {
  const room = String(turns + 16);
  return startFaultSystem({
    responder: loadResponder(latencyMs),
    replicas: { "tool-runner": 2 },
    env: { LOG_LEVEL: "warn" },
    envFor: {
      // the system's capacity is what this loads, not one user's share of it (USER_MAX_CONCURRENT_TURNS)
      orchestrator: { RUN_CONCURRENCY: room, USER_MAX_CONCURRENT_TURNS: "0" },
      "tool-runner": { TOOL_CONCURRENCY: room },
    },
  });
}
