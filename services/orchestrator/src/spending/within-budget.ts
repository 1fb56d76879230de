import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";
import type { TurnBudget } from "./budgets.js";
import type { DeliverySpending } from "./delivery-spending.js";

/**
 * The model seam with the budgets asked before each call (docs/models.md "Budgets"): a turn, or a subagent, that
 * has passed a budget stops at its next model call with BUDGET_EXCEEDED, after what it has already written. Without
 * budgets (`check` undefined: none is configured) the model itself, with nothing in front of its calls.
 */
export function withinBudget(model: ModelCaller, check: (() => Promise<void>) | undefined): ModelCaller {
  if (!check) return model;
  return {
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      await check();
      yield* model.stream(request);
    },
  };
}

/**
 * What a model call of a turn asks its budgets first, counting what the turn spent that the totals do not have yet;
 * undefined when the turn has no budgets (Budgets.forTurn).
 */
export const budgetCheck = (budget: TurnBudget | undefined, spending: Pick<DeliverySpending, "unstoredCost">): (() => Promise<void>) | undefined =>
  budget && (async () => budget.check(await spending.unstoredCost()));
