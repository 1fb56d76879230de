import { setTimeout as sleep } from "node:timers/promises";
import { isCasConflict } from "@agent-orchestrator/shared/runtime";

/** Compare-and-set rounds one change may lose before it gives up; each loss means another writer got through. */
const maxRounds = 50;

/**
 * Runs `attempt` (a read, a change and a compare-and-set write) again from a fresh read whenever another writer
 * got there first, after a short random pause so racing writers spread out. Any other error is thrown at once.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isCasConflict(error) || round >= maxRounds) throw error;
      await sleep(Math.random() * 20);
    }
  }
}
