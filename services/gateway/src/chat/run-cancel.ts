import { encodeJson, traceHeadersOption } from "@agent-orchestrator/shared/runtime";
import { subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";

/** Broadcasts a cancel for the session's turn (`runId` narrows it to that turn); idempotent. */
export function publishCancel(context: GatewayContext, sessionId: string, runId?: string): void {
  context.connection.publish(
    context.subjectPrefix + subjects.runCancel(sessionId),
    encodeJson(runId === undefined ? { session_id: sessionId } : { session_id: sessionId, run_id: runId }),
    traceHeadersOption(),
  );
}
