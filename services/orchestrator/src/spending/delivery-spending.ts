import { type Logger } from "@agent-orchestrator/shared/runtime";
import { addUsage, zeroUsage, type Usage } from "@agent-orchestrator/shared/wire";
import { countCost } from "./cost-metric.js";
import type { SpendingStore } from "./spending-store.js";

/**
 * What one delivery of a turn, or of a subagent, spends, counted in the totals while it happens (docs/models.md
 * "Cost totals"): each model call's usage is added as the call ends (`<run id>:<attempt>:<n>`), before the next
 * budget check of any turn on any replica, so turns running at once pass a budget by at most one call each; the
 * turn itself is counted once at its end (`<run id>:<attempt>`), with what its calls could not store. It never
 * throws: a total that cannot be written is logged and kept here (`unstoredCost`), for the budgets and for the end.
 */
export class DeliverySpending {
  private place: { projectId: string; agentId: string } | undefined;
  private calls = 0;
  private notStored: Usage = zeroUsage();
  private ended = false;

  constructor(
    private readonly spending: Pick<SpendingStore, "record"> | undefined,
    private readonly delivery: { runKey: string; user: string },
    private readonly logger: Logger,
  ) {}

  /** The delivery runs in this project for this agent: from now on it spends there. */
  placed(projectId: string, agentId: string): void {
    this.place = { projectId, agentId };
  }

  /** What this delivery spent that the stored totals do not have: a budget check adds it. */
  get unstoredCost(): number {
    return this.notStored.cost ?? 0;
  }

  /** Adds one ended model call's usage to the totals; a call that cost nothing writes nothing. */
  async call(usage: Usage): Promise<void> {
    if (isEmpty(usage)) return;
    const key = `${this.delivery.runKey}:${++this.calls}`;
    if (!(await this.store(key, usage, 0))) this.notStored = addUsage(this.notStored, usage);
  }

  /**
   * Ends a user's turn, once: counts the turn, with what its calls could not store, and its whole usage (its
   * subagents' included) in the cost metric. A turn that made no model call (`usage` undefined) is not counted.
   */
  async endTurn(usage: Usage | undefined): Promise<void> {
    if (!this.place || !usage || this.ended) return;
    this.ended = true;
    if (usage.cost !== undefined) countCost(this.place.projectId, this.place.agentId, usage.cost);
    await this.storeLeftover(1);
  }

  /** Ends a subagent, once: what its calls could not store is tried again; it is no turn of its own. */
  async endSubagent(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (!isEmpty(this.notStored)) await this.storeLeftover(0);
  }

  private async storeLeftover(turns: 0 | 1): Promise<void> {
    if (await this.store(this.delivery.runKey, this.notStored, turns)) this.notStored = zeroUsage();
  }

  /** Whether the usage is now in the totals; never without a store (the budgets then count it from here). */
  private async store(runKey: string, usage: Usage, turns: 0 | 1): Promise<boolean> {
    if (!this.place || !this.spending) return false;
    try {
      await this.spending.record({ runKey, user: this.delivery.user, ...this.place, usage, turns, at: new Date() });
      return true;
    } catch (error) {
      this.logger.error({ err: error, usage }, "the turn's spending could not be added to the totals");
      return false;
    }
  }
}

const isEmpty = (usage: Usage): boolean => usage.prompt_tokens === 0 && usage.completion_tokens === 0 && !usage.cost;
