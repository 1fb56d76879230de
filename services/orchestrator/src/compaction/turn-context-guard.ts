import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { ToolContext } from "@agent-orchestrator/shared/wire";
import type { ToolCaller } from "../loop/tool-caller.js";
import type { RoutedModel } from "../model/model-router.js";
import type { UsageMeter } from "../model/usage-meter.js";
import { withinBudget } from "../spending/within-budget.js";
import { WindowGuard } from "./window-guard.js";

/**
 * The context guard of one turn or subagent on its route (docs/models.md "Compaction"): its window, and the model
 * that writes its hand-off summaries, the compaction route's when one is configured, else its own. A summary is one
 * of the turn's calls: in its meter (its cost, at its route's price), asked of the budgets first.
 */
export function turnContextGuard(input: {
  thresholdPercent: number;
  routed: RoutedModel;
  /** the compaction route (ModelRouter.compaction()) */
  summaries: RoutedModel | undefined;
  meter: UsageMeter;
  /** the budgets' check, asked before each model call; undefined without budgets */
  admit: (() => Promise<void>) | undefined;
  tools: ToolCaller;
  context: ToolContext;
  /** names the calls that read the workflow's files again */
  callPrefix: string;
  logger: Logger;
}): WindowGuard {
  const { summaries, meter } = input;
  return new WindowGuard({
    window: input.routed.window,
    thresholdPercent: input.thresholdPercent,
    summarizer: summaries ? meter.alongside(withinBudget(summaries.caller, input.admit), summaries.price) : meter,
    summarizerWindow: (summaries ?? input.routed).window,
    files: { tools: input.tools, context: input.context, callPrefix: input.callPrefix },
    logger: input.logger,
  });
}
