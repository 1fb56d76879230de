import { encodeJson, traceHeadersOption } from "@agent-orchestrator/shared/runtime";
import { subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";

/**
 * Broadcasts a cancel for the session's turn (`runId` narrows it to that turn); idempotent. A chat paused for a
 * decision has no running turn: the cancel rejects its pending calls instead (docs/approvals.md), recorded as `by`'s.
 */
export function publishCancel(context: GatewayContext, sessionId: string, runId?: string, by?: string): void {
  context.connection.publish(
    context.subjectPrefix + subjects.runCancel(sessionId),
    encodeJson({ session_id: sessionId, ...(runId === undefined ? {} : { run_id: runId }), ...(by === undefined ? {} : { by }) }),
    traceHeadersOption(),
  );
}
