import { describe, expect, it } from "vitest";
import type { AgentSummary } from "@agent-orchestrator/shared/wire";
import { agentMatches, groupAgents } from "./group-agents.js";

const agent = (id: string, name: string, bundleName: string, source: AgentSummary["source"]): AgentSummary => ({
  id,
  name,
  title: `${name}'s title`,
  icon: "",
  description: `${name} helps`,
  bundleName,
  source,
});

describe("groupAgents", () => {
  it("puts custom bundles before installed modules, each group and its agents sorted by name", () => {
    const groups = groupAgents([
      agent("bmm/pm", "John", "bmm", "module"),
      agent("zeta", "Zed", "zeta-studio", "bundle"),
      agent("bmm/analyst", "Mary", "bmm", "module"),
      agent("idea-coach", "Nova", "idea-studio", "bundle"),
      agent("critic", "Ada", "idea-studio", "bundle"),
    ]);
    expect(groups.map((group) => [group.bundleName, group.source, group.agents.map((member) => member.name)])).toEqual([
      ["idea-studio", "bundle", ["Ada", "Nova"]],
      ["zeta-studio", "bundle", ["Zed"]],
      ["bmm", "module", ["John", "Mary"]],
    ]);
  });

  it("keeps a bundle and a module of the same name apart", () => {
    expect(groupAgents([agent("a", "A", "core", "bundle"), agent("core/b", "B", "core", "module")])).toHaveLength(2);
  });
});

describe("agentMatches", () => {
  it("matches any of name, title, description, id and bundle, ignoring case", () => {
    const nova = agent("idea-coach", "Nova", "idea-studio", "bundle");
    expect(["nova", "TITLE", "helps", "coach", "studio", ""].every((filter) => agentMatches(nova, filter))).toBe(true);
    expect(agentMatches(nova, "analyst")).toBe(false);
  });
});
