import { describe, expect, it } from "vitest";
import { renderValue, resolveSkillText, type SkillTextScope } from "./skill-text.js";

const scope: SkillTextScope = {
  skillRoot: "{project-root}/.claude/skills/tidy-desk",
  skillName: "tidy-desk",
  customization: {
    workflow: {
      template: "assets/layout.md",
      output: "{planning_artifacts}/desks",
      steps: ["Clear the top", "Dust"],
      empty: [],
      nested: { depth: 2 },
    },
    agent: { icon: "🧹", menu: [{ code: "TD", description: "Tidy now", skill: "tidy-desk" }] },
  },
  variables: { user_name: "Grace", planning_artifacts: "{session-folder}/plans", date: "2026-01-02" },
  files: new Set(["assets/layout.md"]),
};

describe("resolveSkillText", () => {
  it("resolves skill-root, skill-name, customization and config variables", () => {
    const text = "Read {skill-root}/x.md as {skill-name}, hi {user_name} {agent.icon}, save to {workflow.output}/{date}.";
    expect(resolveSkillText(text, scope)).toBe(
      "Read {project-root}/.claude/skills/tidy-desk/x.md as tidy-desk, hi Grace 🧹, save to {session-folder}/plans/desks/2026-01-02.",
    );
  });

  it("shows a customization value naming a skill file as its virtual path", () => {
    expect(resolveSkillText("Use {workflow.template}", scope)).toBe("Use {project-root}/.claude/skills/tidy-desk/assets/layout.md");
  });

  it("makes ./file of the skill a virtual path, leaving other ./ paths alone", () => {
    expect(resolveSkillText("Follow ./assets/layout.md. Then ./other.md and a/./assets/layout.md", scope)).toBe(
      "Follow {project-root}/.claude/skills/tidy-desk/assets/layout.md. Then ./other.md and a/./assets/layout.md",
    );
  });

  it("keeps {project-root}, unknown names, template placeholders and missing fields as written", () => {
    const text = "{project-root}/a {doc_workspace} {{title}} {workflow.missing} {other.x}";
    expect(resolveSkillText(text, scope)).toBe(text);
  });

  it("renders lists, tables and lists of tables readably", () => {
    expect(resolveSkillText("{workflow.steps}", scope)).toBe("\n- Clear the top\n- Dust\n");
    expect(resolveSkillText("{workflow.empty}", scope)).toBe("(none)");
    expect(resolveSkillText("{workflow.nested}", scope)).toBe('{"depth":2}');
    expect(resolveSkillText("{workflow.nested.depth}", scope)).toBe("2");
    expect(resolveSkillText("{agent.menu}", scope)).toBe("\n- code: TD; description: Tidy now; skill: tidy-desk\n");
    expect(renderValue(true)).toBe("true");
  });
});
