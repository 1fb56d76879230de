import type { AgentModel, AgentSummary } from "@agent-orchestrator/shared/wire";
import { agentAvatar } from "./agent-avatar.js";
import { h } from "../lib/dom.js";
import { agentMatches, groupAgents } from "./group-agents.js";
import { formatHashRoute } from "../lib/hash-route.js";

/** An agent as `GET /api/agents` lists it: with the model that answers it, when the orchestrator told (docs/models.md "The agent list"). */
type ListedAgent = AgentSummary & { model?: AgentModel };

/**
 * The agents as cards under one heading per bundle or installed module. Each card is a link to a new
 * chat (`#/agent/<id>`), so keyboard, middle-click and the back button work as on any page.
 */
export function agentPicker(agents: readonly ListedAgent[], filter: string): HTMLElement {
  const shown = agents.filter((agent) => agentMatches(agent, filter));
  if (agents.length === 0) {
    return h("p", { class: "empty" }, "No agents are installed. Add a bundle under bmad/custom/bundles, or install a BMAD module, then reload.");
  }
  if (shown.length === 0) return h("p", { class: "empty" }, `No agent matches “${filter.trim()}”.`);
  return h(
    "div",
    { class: "agent-groups-inner" },
    ...groupAgents(shown).map((group) =>
      h(
        "section",
        { class: "agent-group", "aria-label": `${group.bundleName} (${group.source})` },
        h(
          "h2",
          { class: "group-title" },
          h("span", {}, group.bundleName),
          h("span", { class: `source-badge source-${group.source}` }, group.source === "bundle" ? "bundle" : "module"),
        ),
        h("ul", { class: "agent-cards" }, ...group.agents.map((agent) => h("li", {}, agentCard(agent)))),
      ),
    ),
  );
}

function agentCard(agent: ListedAgent): HTMLAnchorElement {
  return h(
    "a",
    { class: "agent-card", href: formatHashRoute({ view: "agent", agentId: agent.id }), "aria-label": `${agent.name} — ${agent.title}` },
    agentAvatar(agent),
    h(
      "span",
      { class: "agent-card-text" },
      h("span", { class: "agent-card-title" }, h("strong", {}, agent.name), h("span", { class: "agent-title" }, agent.title)),
      h("span", { class: "agent-description" }, agent.description),
      h("span", { class: "agent-id" }, [agent.id, agent.release ? `BMAD ${agent.release}` : "", agent.model?.name ?? ""].filter(Boolean).join(" · ")),
    ),
  );
}
