import type { RunEvent } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { ApiError } from "../api/api-error.js";

/** How often, and how many times, the page looks whether the decided turn has resumed yet. */
const lookEveryMs = 500;
const looks = 40;

const pause = (milliseconds: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * The events of the turn a decision resumed, for a page whose WebSocket is down (it decided by REST): the resumed
 * turn's run id is the approval's id (docs/approvals.md "Resuming"), so the page waits until the chat names that run
 * as running or as its last, then replays it from its start over SSE (`GET /api/sessions/:id/events`).
 */
export async function resumedRunEvents(api: Pick<ApiClient, "getSession" | "watch">, sessionId: string, approvalId: string, signal: AbortSignal): Promise<AsyncGenerator<RunEvent>> {
  for (let look = 0; look < looks && !signal.aborted; look++) {
    const session = await api.getSession(sessionId);
    if (session.run_id === approvalId || session.last_run_id === approvalId) return api.watch(sessionId, signal);
    await pause(lookEveryMs, signal);
  }
  if (signal.aborted) throw new ApiError("CANCELLED", "Stopped");
  throw new ApiError("STREAM_ENDED", "The turn has not resumed yet: reopen the chat to see its answer");
}
