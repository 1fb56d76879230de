import type { Service } from "nats";
import { addJsonEndpoint, type Logger } from "@agent-orchestrator/shared/runtime";
import {
  addSpending,
  ProjectBudgetRequest,
  ProjectUsageRequest,
  subjects,
  UserUsageRequest,
  zeroSpending,
  type ProjectUsage,
  type UserUsage,
} from "@agent-orchestrator/shared/wire";
import { projectOfMember, requireOwner } from "../projects/project-access.js";
import type { ProjectStore } from "../projects/project-store.js";
import type { Budgets } from "../spending/budgets.js";
import { dayOf, monthOf } from "../spending/spending-periods.js";
import type { SpendingStore } from "../spending/spending-store.js";

export interface UsageEndpointDeps {
  spending: SpendingStore;
  budgets: Budgets;
  projects: ProjectStore;
  subjectPrefix: string;
  /** the clock of the periods shown (tests cross a month's end with it) */
  now?: () => Date;
}

/**
 * What was spent, for the gateway (docs/models.md "Cost totals"): a project's totals to any member
 * (`agent.project.usage`), its monthly budget set by its owner only (`agent.project.budget`), and the caller's own
 * totals (`agent.usage.user`).
 */
export function addUsageEndpoints(service: Service, deps: UsageEndpointDeps, logger: Logger): void {
  const { spending, budgets, projects, subjectPrefix } = deps;
  const now = deps.now ?? (() => new Date());

  const projectUsage = async (projectId: string): Promise<ProjectUsage> => {
    const month = monthOf(now());
    const [current, months, monthlyBudget] = await Promise.all([spending.projectMonth(projectId, month), spending.projectMonths(projectId), budgets.projectView(projectId)]);
    const byMonth = [...months.entries()].sort(([a], [b]) => b.localeCompare(a)).map(([period, totals]) => ({ period, ...totals }));
    return {
      project_id: projectId,
      this_month: { period: month, ...current.totals },
      by_month: byMonth,
      all_time: [...months.values()].reduce(addSpending, zeroSpending()),
      by_agent: current.byAgent,
      monthly_budget: monthlyBudget,
    };
  };

  addJsonEndpoint(service, "project-usage", subjectPrefix + subjects.projectRequest("usage"), ProjectUsageRequest, async ({ user, project_id }) => {
    await projectOfMember(projects, project_id, user);
    return { success: true, usage: await projectUsage(project_id) };
  }, logger);

  addJsonEndpoint(service, "project-budget", subjectPrefix + subjects.projectRequest("budget"), ProjectBudgetRequest, async ({ user, project_id, monthly }) => {
    await projectOfMember(projects, project_id, user);
    await projects.update(project_id, (current) => {
      requireOwner(current, user, "set its budget");
      const { monthly_budget: _previous, ...rest } = current;
      return monthly === null ? rest : { ...rest, monthly_budget: monthly };
    });
    return { success: true, usage: await projectUsage(project_id) };
  }, logger);

  addJsonEndpoint(service, "usage-user", subjectPrefix + subjects.usageUser, UserUsageRequest, async ({ user }) => {
    const at = now();
    const [periods, dailyBudget] = await Promise.all([spending.userPeriods(user, dayOf(at), monthOf(at)), budgets.userView(user)]);
    const usage: UserUsage = {
      user,
      today: { period: dayOf(at), ...periods.day },
      this_month: { period: monthOf(at), ...periods.month },
      daily_budget: dailyBudget,
    };
    return { success: true, usage };
  }, logger);
}
