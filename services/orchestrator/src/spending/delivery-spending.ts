import { type Logger } from "@agent-orchestrator/shared/runtime";
import { zeroUsage, type Usage } from "@agent-orchestrator/shared/wire";
import { countCost } from "./cost-metric.js";
import type { SpendingStore } from "./spending-store.js";

/** A model call's usage not yet in the totals, under the key it is counted once by, and when it ended (its period). */
interface Unstored {
  runKey: string;
  usage: Usage;
  at: Date;
}

/**
 * What one delivery of a turn, or of a subagent, spends, counted in the totals while it happens (docs/models.md
 * "Cost totals"): each model call's usage is written as the call ends (`<run id>:<attempt>:<n>`), while the turn goes
 * on with its tools, and before its next budget check, which waits for it (`unstoredCost`): so turns running at once
 * pass a budget by at most one call each. The turn itself is counted once at its end (`<run id>:<attempt>`), with the
 * call that ended it when that one is not written yet: one write per total instead of two one after the other. It never
 * throws: a call that cannot be written is logged and kept here, seen by the budgets, and written again under its own
 * key with the next call and at the end, so a total that had it already (one of the two written) does not count it
 * twice.
 */
export class DeliverySpending {
  private calls = 0;
  private unstored: Unstored[] = [];
  /** the calls' writes under way, in order */
  private writing: Promise<void> = Promise.resolve();
  private ended = false;

  /** `delivery` names the delivery, its user, and the project and agent it spends for (its admission found them). */
  constructor(
    private readonly spending: Pick<SpendingStore, "recordAll"> | undefined,
    private readonly delivery: { runKey: string; user: string; projectId: string; agentId: string },
    private readonly logger: Logger,
  ) {}

  /** What this delivery spent that the stored totals do not have, once its calls' writes have come back: a budget check adds it. */
  async unstoredCost(): Promise<number> {
    await this.writing;
    return this.unstored.reduce((cost, call) => cost + (call.usage.cost ?? 0), 0);
  }

  /** Adds one ended model call's usage to the totals, without waiting for it; a call that cost nothing writes nothing. */
  call(usage: Usage): void {
    if (isEmpty(usage)) return;
    this.unstored.push({ runKey: `${this.delivery.runKey}:${++this.calls}`, usage, at: new Date() });
    // written once what the call's end set off has run: a turn that ends there (its last call) writes it with its own count
    this.writing = this.writing.then(afterThisTurnOfTheLoop).then(() => this.storeUnstored());
  }

  /**
   * Ends a user's turn, once: counts the turn once its calls are written, and its whole usage (its subagents'
   * included) in the cost metric. A turn that made no model call (`usage` undefined) is not counted.
   */
  async endTurn(usage: Usage | undefined): Promise<void> {
    // a call whose write has not started (the turn's last) is taken here, before the writes under way are awaited
    const notSent = this.unstored;
    this.unstored = [];
    await this.writing;
    this.unstored.push(...notSent);
    if (!usage || this.ended) return this.storeUnstored();
    this.ended = true;
    if (usage.cost !== undefined) countCost(this.delivery.projectId, this.delivery.agentId, usage.cost);
    // the turn with what its calls have not stored, in one write per key
    const pending = this.unstored;
    this.unstored = [];
    const turn: Unstored = { runKey: this.delivery.runKey, usage: zeroUsage(), at: new Date() };
    if (!(await this.store([...pending.map((call) => ({ ...call, turns: 0 as const })), { ...turn, turns: 1 }]))) this.unstored.push(...pending);
  }

  /** Ends a subagent, once: what its calls could not store is tried again; it is no turn of its own. */
  async endSubagent(): Promise<void> {
    await this.writing;
    if (this.ended) return;
    this.ended = true;
    await this.storeUnstored();
  }

  /** Writes every call not yet in the totals, each under its own key; those that fail stay. */
  private async storeUnstored(): Promise<void> {
    const pending = this.unstored;
    this.unstored = [];
    const stored = await Promise.all(pending.map((call) => this.store([{ ...call, turns: 0 }])));
    this.unstored.push(...pending.filter((_call, index) => !stored[index]));
  }

  /** Whether the entries are now in the totals; never without a store (the budgets then count them from here). */
  private async store(entries: Array<Unstored & { turns: 0 | 1 }>): Promise<boolean> {
    if (!this.spending) return false;
    const { user, projectId, agentId } = this.delivery;
    try {
      await this.spending.recordAll(entries.map(({ runKey, usage, at, turns }) => ({ runKey, user, projectId, agentId, usage, turns, at })));
      return true;
    } catch (error) {
      this.logger.error({ err: error, usage: entries.map((entry) => entry.usage) }, "the turn's spending could not be added to the totals");
      return false;
    }
  }
}

const afterThisTurnOfTheLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const isEmpty = (usage: Usage): boolean => usage.prompt_tokens === 0 && usage.completion_tokens === 0 && !usage.cost;
