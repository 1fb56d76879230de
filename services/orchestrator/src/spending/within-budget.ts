import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";

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
