import type { AgentSummary } from "@agent-orchestrator/shared/wire";

/** Agents that come from the same bundle or installed module, shown under one heading. */
export interface AgentGroup {
  key: string;
  bundleName: string;
  source: AgentSummary["source"];
  agents: AgentSummary[];
}

/** Groups agents by where they come from: custom bundles first, then installed modules, each by name. */
export function groupAgents(agents: readonly AgentSummary[]): AgentGroup[] {
  const groups = new Map<string, AgentGroup>();
  for (const agent of agents) {
    const key = `${agent.source}:${agent.bundleName}`;
    const group = groups.get(key) ?? { key, bundleName: agent.bundleName, source: agent.source, agents: [] };
    group.agents.push(agent);
    groups.set(key, group);
  }
  const sourceOrder = (group: AgentGroup): number => (group.source === "bundle" ? 0 : 1);
  return [...groups.values()]
    .map((group) => ({ ...group, agents: [...group.agents].sort((a, b) => a.name.localeCompare(b.name)) }))
    .sort((a, b) => sourceOrder(a) - sourceOrder(b) || a.bundleName.localeCompare(b.bundleName));
}

/** True when the filter text appears in the agent's name, title, description, id or bundle. */
export function agentMatches(agent: AgentSummary, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  if (needle === "") return true;
  return [agent.name, agent.title, agent.description, agent.id, agent.bundleName].some((field) => field.toLowerCase().includes(needle));
}
