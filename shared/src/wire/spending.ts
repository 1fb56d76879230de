import { z } from "zod";
import { ErrorReply } from "./error-code.js";
import { projectIdSchema, userNameSchema } from "./projects/project-record.js";

/**
 * What turns spent in one period (docs/models.md "Cost totals"): their tokens as the models reported them, the
 * part of the prompts served from a provider's cache, the cost at the routes' prices (0 where a route has no
 * price) and how many turns ended in it. A turn counts in the period (UTC) in which it ended.
 */
export const SpendingTotals = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  cached_prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  cost: z.number().nonnegative(),
  turns: z.number().int().nonnegative(),
});
export type SpendingTotals = z.infer<typeof SpendingTotals>;

export const zeroSpending = (): SpendingTotals => ({ prompt_tokens: 0, cached_prompt_tokens: 0, completion_tokens: 0, cost: 0, turns: 0 });

export function addSpending(a: SpendingTotals, b: SpendingTotals): SpendingTotals {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    cached_prompt_tokens: a.cached_prompt_tokens + b.cached_prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    cost: a.cost + b.cost,
    turns: a.turns + b.turns,
  };
}

/** The totals of one UTC period: `2026-11` (a month) or `2026-11-25` (a day). */
const PeriodSpending = SpendingTotals.extend({ period: z.string() });

/**
 * A budget as it applies now: its limit (null: none), what was spent against it, and when it starts again (the
 * next UTC month or day, ISO time). `source` says where a project's limit comes from: the owner's own
 * (`project`), BUDGET_PROJECT_MONTHLY (`default`), or neither (`none`).
 */
export const BudgetView = z.object({
  limit: z.number().nonnegative().nullable(),
  spent: z.number().nonnegative(),
  resets_at: z.string(),
  source: z.enum(["project", "default", "none"]),
});
export type BudgetView = z.infer<typeof BudgetView>;

/** A project's spending as any member sees it: this month, each month (newest first), all time, by agent this month. */
export const ProjectUsage = z.object({
  project_id: z.string(),
  this_month: PeriodSpending,
  by_month: z.array(PeriodSpending),
  all_time: SpendingTotals,
  by_agent: z.record(z.string(), SpendingTotals),
  monthly_budget: BudgetView,
});
export type ProjectUsage = z.infer<typeof ProjectUsage>;

/** The caller's own spending across every project, today and this month, and their daily budget. */
export const UserUsage = z.object({
  user: z.string(),
  today: PeriodSpending,
  this_month: PeriodSpending,
  daily_budget: BudgetView,
});
export type UserUsage = z.infer<typeof UserUsage>;

/** `PUT /api/projects/:id/budget`: the project's own monthly budget, or null to fall back to BUDGET_PROJECT_MONTHLY. */
export const ProjectBudgetBody = z.object({ monthly: z.number().nonnegative().finite().nullable() }).strict();
export type ProjectBudgetBody = z.infer<typeof ProjectBudgetBody>;

/** gateway → orchestrator on `agent.project.usage` and `agent.project.budget` (the caller must be a member; the budget: the owner). */
export const ProjectUsageRequest = z.object({ user: userNameSchema, project_id: projectIdSchema });
export const ProjectBudgetRequest = ProjectUsageRequest.extend({ monthly: ProjectBudgetBody.shape.monthly });
export const ProjectUsageReply = z.union([z.object({ success: z.literal(true), usage: ProjectUsage }), ErrorReply]);
export type ProjectUsageReply = z.infer<typeof ProjectUsageReply>;

/** gateway → orchestrator on `agent.usage.user`: the caller's own totals. */
export const UserUsageRequest = z.object({ user: userNameSchema });
export const UserUsageReply = z.union([z.object({ success: z.literal(true), usage: UserUsage }), ErrorReply]);
export type UserUsageReply = z.infer<typeof UserUsageReply>;
