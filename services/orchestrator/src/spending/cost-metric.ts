import { orchestratorMetrics } from "../orchestrator-metrics.js";

/**
 * Projects one process names in `ao_turn_cost_total`; the ones after are counted as `other`. Agents are few (those
 * installed), projects are not: the cap keeps the series one process exports bounded whatever the deployment
 * holds (docs/models.md "Cost totals"). The spending bucket has every project's exact totals.
 */
const maxProjectLabels = 500;
const namedProjects = new Set<string>();

function projectLabel(projectId: string): string {
  if (namedProjects.has(projectId)) return projectId;
  if (namedProjects.size >= maxProjectLabels) return "other";
  namedProjects.add(projectId);
  return projectId;
}

/** Counts a turn's cost under its project and agent. */
export function countCost(projectId: string, agentId: string, cost: number): void {
  orchestratorMetrics.turnCost.inc({ project: projectLabel(projectId), agent: agentId }, cost);
}
