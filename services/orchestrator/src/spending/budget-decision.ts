import { AppError } from "@agent-orchestrator/shared/runtime";

/** One budget as it stands when a turn or a model call asks to go on. */
export interface BudgetStanding {
  kind: "project_monthly" | "user_daily";
  /** undefined: no limit */
  limit: number | undefined;
  /** spent in the current period, the asking turn's own spending so far included */
  spent: number;
  /** the start of the next period */
  resetsAt: Date;
}

/**
 * The first budget that is spent, or undefined when every one has room. A budget is spent once what was spent
 * reaches its limit: at the limit nothing is left, and a limit of 0 lets nothing run. Pure, so every rule is
 * pinned by a table test.
 */
export function spentBudget(standings: readonly BudgetStanding[]): BudgetStanding | undefined {
  return standings.find((standing) => standing.limit !== undefined && standing.spent >= standing.limit);
}

/** The refusal of a turn or a model call past `standing`: which budget, its amount, what was spent and when it resets. */
export function budgetExceeded(standing: BudgetStanding): AppError {
  const limit = amount(standing.limit ?? 0);
  const spent = amount(standing.spent);
  const resets = standing.resetsAt.toISOString();
  const message =
    standing.kind === "project_monthly"
      ? `The project's monthly budget of ${limit} is spent (${spent} this month); it resets at ${resets}. The project's owner can raise it.`
      : `Your daily budget of ${limit} is spent (${spent} today); it resets at ${resets}.`;
  return new AppError("BUDGET_EXCEEDED", message, { detail: { budget: standing.kind, limit: standing.limit, spent: standing.spent, resets_at: resets } });
}

/** An amount in the prices' currency as people read it: at most six decimals, no float noise. */
const amount = (value: number): string => String(Number(value.toFixed(6)));
