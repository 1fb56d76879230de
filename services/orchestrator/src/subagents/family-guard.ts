import { AppError, retryWhileLeaderless, type Logger } from "@agent-orchestrator/shared/runtime";
import { type RunParent } from "@agent-orchestrator/shared/wire";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";
import type { SessionStore } from "../sessions/session-store.js";

/** The user's turn at the top of a subagent's family; unknown for a grandchild queued before requests named it. */
export const rootRunOf = (parent: RunParent): string | undefined => parent.root_run_id ?? (parent.depth === 1 ? parent.run_id : undefined);

/**
 * Whether the user's turn a subagent works for still runs: the session's head names that turn while it
 * runs (the parent holds the session's one running turn for as long as its children run) and nothing
 * once it has ended, however it ended. So a child queued before its parent was cancelled, failed or timed
 * out, and taken from the work queue only later (every orchestrator was busy), learns that it has no one
 * to work for, from state that survives any process, instead of from a cancel broadcast that went out while
 * no orchestrator was running it. A read that fails says "still runs": the child's own deadline still bounds it.
 */
export async function familyStillRuns(store: SessionStore, sessionId: string, owner: string, parent: RunParent, logger: Logger): Promise<boolean> {
  const root = rootRunOf(parent);
  if (root === undefined) return true;
  try {
    const state = await retryWhileLeaderless(() => store.getState(sessionId, owner));
    return state?.status === "running" && state.run_id === root;
  } catch (error) {
    logger.warn({ err: error }, "could not read whether the subagent's parent turn still runs");
    return true;
  }
}

/** The error of a subagent whose family's turn has ended. */
export const familyEnded = (): AppError => new AppError("CANCELLED", "The turn this subagent worked for has ended; the subagent was stopped");

/**
 * The model seam for a subagent: before each call, the family is asked whether it still runs, so a child
 * whose cancel broadcast never reached it (at most once, like all core NATS) stops at its next model call
 * instead of running on to its deadline.
 */
export function whileFamilyRuns(model: ModelCaller, stillRuns: () => Promise<boolean>): ModelCaller {
  return {
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      if (!(await stillRuns())) throw familyEnded();
      yield* model.stream(request);
    },
  };
}
