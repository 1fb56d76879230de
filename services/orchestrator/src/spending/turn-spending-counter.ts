import type { Logger, Usage } from "@agent-orchestrator/shared";
import { countCost } from "./cost-metric.js";
import type { SpendingStore } from "./spending-store.js";

/**
 * Counts one delivery of a turn in the spending totals and the cost metric, once: the turn's end calls it before
 * saving the session, and its failure path calls it again when that save fails. It never throws: a total that
 * cannot be written is logged, and the turn ends as it would have (docs/models.md "Cost totals" says what a crash
 * can lose).
 */
export class TurnSpendingCounter {
  private place: { projectId: string; agentId: string } | undefined;
  private counted = false;

  constructor(
    private readonly spending: SpendingStore | undefined,
    private readonly turn: { runKey: string; user: string },
    private readonly logger: Logger,
  ) {}

  /** The turn was accepted in this project for this agent: from now on it spends there. */
  placed(projectId: string, agentId: string): void {
    this.place = { projectId, agentId };
  }

  async count(usage: Usage | undefined): Promise<void> {
    if (!this.place || !usage || this.counted) return;
    this.counted = true;
    const { projectId, agentId } = this.place;
    if (usage.cost !== undefined) countCost(projectId, agentId, usage.cost);
    if (!this.spending) return;
    try {
      await this.spending.record({ ...this.turn, projectId, agentId, usage, at: new Date() });
    } catch (error) {
      this.logger.error({ err: error, usage }, "the turn's spending could not be added to the totals");
    }
  }
}
