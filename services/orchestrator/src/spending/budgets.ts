import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { BudgetView, ProjectRecord } from "@agent-orchestrator/shared/wire";
import type { ProjectStore } from "../projects/project-store.js";
import { budgetExceeded, spentBudget, type BudgetStanding } from "./budget-decision.js";
import { dayOf, monthOf, nextDayStart, nextMonthStart } from "./spending-periods.js";
import type { SpendingStore } from "./spending-store.js";

/** The deployment's budgets (BUDGET_PROJECT_MONTHLY, BUDGET_USER_DAILY); undefined: no limit. */
export interface BudgetLimits {
  projectMonthly: number | undefined;
  userDaily: number | undefined;
}

/** A project's monthly limit and where it comes from. */
export interface ProjectLimit {
  limit: number | undefined;
  source: BudgetView["source"];
}

/** The budgets of one turn (or one subagent's), its project's limit read once when it starts. */
export interface TurnBudget {
  /** throws BUDGET_EXCEEDED when a budget is spent, counting `ownSpent` (what this turn spent so far, not yet stored) */
  check(ownSpent: number): Promise<void>;
  /**
   * `check` as the turn is accepted: its first model call, a moment later, goes on this answer instead of reading the
   * totals again (no call of the turn ends in between, so the bound of one call per turn stays)
   */
  admit(ownSpent: number): Promise<void>;
}

/**
 * The budgets (docs/models.md "Budgets"): a project's per UTC month (its owner's own limit, else
 * BUDGET_PROJECT_MONTHLY) and a user's per UTC day (BUDGET_USER_DAILY), checked against the stored totals
 * (spending-store.ts) when a turn is accepted and before each model call. The clock is injected so a test
 * crosses a period's end without waiting for it.
 */
export class Budgets {
  constructor(
    private readonly spending: SpendingStore,
    private readonly projects: ProjectStore,
    private readonly limits: BudgetLimits,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The project's monthly limit, read. */
  private async projectLimit(projectId: string): Promise<ProjectLimit> {
    return this.limitOf((await this.projects.get(projectId))?.record);
  }

  /**
   * The budgets of a turn in `projectId`, its project's limit from the record the turn read (`project`; undefined:
   * the project has none of its own). Nothing is read until they are asked. Undefined without any limit: the turn has
   * nothing to ask, and its model calls go to the model without a check in front of them (turn-admission.ts).
   */
  forTurn(projectId: string, user: string, project: ProjectRecord | undefined): TurnBudget | undefined {
    const { limit } = this.limitOf(project);
    const userDaily = this.limits.userDaily;
    if (limit === undefined && userDaily === undefined) return undefined;
    const check = async (ownSpent: number): Promise<void> => {
      const spent = spentBudget(await this.standings(projectId, user, limit, ownSpent));
      if (spent) throw budgetExceeded(spent);
    };
    let admitted = false;
    return {
      check: async (ownSpent) => {
        if (admitted) admitted = false;
        else await check(ownSpent);
      },
      admit: async (ownSpent) => {
        await check(ownSpent);
        admitted = true;
      },
    };
  }

  /** The project's monthly budget as its members see it. */
  async projectView(projectId: string): Promise<BudgetView> {
    const now = this.now();
    const { limit, source } = await this.projectLimit(projectId);
    const { totals } = await this.spending.projectMonth(projectId, monthOf(now));
    return { limit: limit ?? null, spent: totals.cost, resets_at: nextMonthStart(now).toISOString(), source };
  }

  /** The user's daily budget as they see it. */
  async userView(user: string): Promise<BudgetView> {
    const now = this.now();
    const { day } = await this.spending.userPeriods(user, dayOf(now), monthOf(now));
    const limit = this.limits.userDaily ?? null;
    return { limit, spent: day.cost, resets_at: nextDayStart(now).toISOString(), source: limit === null ? "none" : "default" };
  }

  private limitOf(project: ProjectRecord | undefined): ProjectLimit {
    const own = project?.monthly_budget;
    if (own !== undefined) return { limit: own, source: "project" };
    return this.limits.projectMonthly === undefined ? { limit: undefined, source: "none" } : { limit: this.limits.projectMonthly, source: "default" };
  }

  /**
   * Each budget with what its period has spent. A read that fails lets the turn go on (logged): the totals are
   * then unknown, and the turn could not be saved either while JetStream cannot be read.
   */
  private async standings(projectId: string, user: string, projectLimit: number | undefined, ownSpent: number): Promise<BudgetStanding[]> {
    const now = this.now();
    try {
      const [project, person] = await Promise.all([
        projectLimit === undefined ? undefined : this.spending.projectMonth(projectId, monthOf(now)),
        this.limits.userDaily === undefined ? undefined : this.spending.userPeriods(user, dayOf(now), monthOf(now)),
      ]);
      return [
        { kind: "project_monthly", limit: projectLimit, spent: (project?.totals.cost ?? 0) + ownSpent, resetsAt: nextMonthStart(now) },
        { kind: "user_daily", limit: this.limits.userDaily, spent: (person?.day.cost ?? 0) + ownSpent, resetsAt: nextDayStart(now) },
      ];
    } catch (error) {
      this.logger.warn({ err: error, projectId }, "the budgets could not be read; the turn goes on");
      return [];
    }
  }
}
