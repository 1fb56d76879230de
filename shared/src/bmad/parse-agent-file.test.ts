import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentFilesFolder as fixturesFolder } from "../testing/agent-files.js";
import { parseAgentFile } from "./parse-agent-file.js";
import type { ParsedAgent } from "./parsed-agent.js";

const fixture = (name: string) => readFileSync(join(fixturesFolder, name), "utf8");
const parsed = (text: string, fileName = "agent.md"): ParsedAgent => {
  const result = parseAgentFile(text, fileName);
  if (!result.ok) throw new Error(result.reason);
  return result.agent;
};
const rejection = (text: string, fileName = "agent.md") => {
  const result = parseAgentFile(text, fileName);
  if (result.ok) throw new Error("expected a rejection");
  return result.reason;
};

describe("parseAgentFile: v6 compiled", () => {
  const agent = parsed(fixture("v6-compiled.md"));

  it("reads the agent attributes and the front-matter description", () => {
    expect(agent).toMatchObject({ format: "v6", id: "bmad/fixture/agents/tester.md", name: "Tess", title: "Test Agent", icon: "🧪" });
    expect(agent.description).toBe("Fixture agent in the v6 compiled dialect");
  });

  it("takes the activation steps, in order, as critical actions, keeping their variables", () => {
    expect(agent.criticalActions).toEqual([
      "Load persona from this current agent file (already in context)",
      "🚨 IMMEDIATE ACTION REQUIRED:\n- Load and read {project-root}/bmad/fixture/config.yaml NOW\n- Store ALL fields as session variables: {user_name}, {communication_language}",
      "Show greeting using {user_name}, then display numbered list of\nALL menu items from menu section",
    ]);
  });

  it("reads menu handlers, rules, persona (entities decoded) and prompts", () => {
    expect(agent.handlers.map((handler) => handler.type)).toEqual(["workflow", "action"]);
    expect(agent.handlers[0]?.instructions).toContain("1. Load {project-root}/bmad/core/tasks/workflow.xml");
    expect(agent.rules).toEqual(["ALWAYS communicate in {communication_language}", "Stay in character until exit selected"]);
    expect(agent.persona).toEqual({
      role: "Fixture Role",
      identity: "Fixture identity & background.",
      communication_style: "Plain and short.",
      principles: "Test everything. Trust nothing.",
    });
    expect(agent.prompts).toEqual([{ id: "deep-check", content: "Check the thing deeply." }]);
  });

  it("maps every menu attribute and keeps a `todo` placeholder, flagged", () => {
    expect(agent.menu).toEqual([
      { trigger: "*help", description: "Show numbered menu" },
      { trigger: "*plan", description: "Make a plan", workflow: "{project-root}/bmad/fixture/workflows/plan/workflow.yaml" },
      { trigger: "*check", description: "Check the plan", validateWorkflow: "{project-root}/bmad/fixture/workflows/plan/workflow.yaml" },
      {
        trigger: "*retro",
        description: "Run a retrospective",
        workflow: "{project-root}/bmad/fixture/workflows/retro/workflow.yaml",
        data: "{project-root}/bmad/_cfg/agent-manifest.csv",
      },
      { trigger: "*doc", description: "Write a document", exec: "{project-root}/bmad/core/tasks/doc.xml", tmpl: "{project-root}/bmad/fixture/templates/doc.md" },
      { trigger: "*deep", description: "Deep check", action: "#deep-check" },
      { trigger: "*later", description: "Not built yet", workflow: "todo", todo: true },
      { trigger: "*exit", description: "Exit with confirmation" },
    ]);
    expect(agent.notes).toEqual([{ code: "PLACEHOLDER", message: 'menu item *later: workflow is the placeholder "todo"' }]);
  });
});

describe("parseAgentFile: v6 early", () => {
  const agent = parsed(fixture("v6-early.md"));

  it("takes <critical-actions><i> as critical actions and maps run-workflow to workflow", () => {
    expect(agent.format).toBe("v6-early");
    expect(agent.criticalActions).toHaveLength(3);
    expect(agent.criticalActions[0]).toBe("Load into memory {project-root}/bmad/fixture/config.yaml and set variable user_name, communication_language");
    expect(agent.menu[1]).toEqual({ trigger: "*brief", description: "Produce a brief", workflow: "{project-root}/bmad/fixture/workflows/brief/workflow.yaml" });
    expect(agent.menu[2]).toMatchObject({ trigger: "*validate", exec: "{project-root}/bmad/core/tasks/validate-workflow.md" });
  });

  it("keeps a trigger without an asterisk as written, and joins <p> principles one per line", () => {
    expect(agent.menu[3]?.trigger).toBe("convert");
    expect(agent.persona.principles).toBe("First principle\nSecond principle");
  });

  it("defaults what an early agent has no section for", () => {
    expect(agent.handlers).toEqual([]);
    expect(agent.rules).toEqual([]);
    expect(agent.description).toBe("");
  });
});

describe("parseAgentFile: tolerance", () => {
  const agent = parsed(fixture("messy.md"));

  it("reads a bare (unfenced) agent with attributes in any order, quotes of both kinds and newlines in tags", () => {
    expect(agent).toMatchObject({ id: "messy", name: 'Mo "the mop"', title: "Messy & Tolerant ✔ ✓", icon: "🧹" });
  });

  it("keeps CDATA verbatim, decodes entities and keeps unknown ones as written", () => {
    expect(agent.persona.role).toBe("Cleaner of <things> & stuff");
    expect(agent.persona.identity).toBe("Handles <tags> 'quoted' &unknown; text");
  });

  it("reads menu items with < in attribute values and arguments in triggers, skips items without a trigger", () => {
    expect(agent.menu).toEqual([
      { trigger: "*tidy {area}", description: "Tidy an area", workflow: "{project-root}/a.yaml" },
      { trigger: "*compare", description: "Compare numbers", action: "answer whether 2 < 3 and 5 > 4" },
      { trigger: "*solo", description: "" },
    ]);
    const messages = agent.notes.map((note) => note.message);
    expect(messages).toContain("stray </stray-end-tag> ignored");
    expect(messages.some((message) => message.includes("without a cmd attribute"))).toBe(true);
  });

  it("defaults missing sections to empty strings and lists", () => {
    const minimal = parsed(`<agent name="Only Name"/>`);
    expect(minimal).toMatchObject({ id: "", name: "Only Name", title: "", icon: "", criticalActions: [], menu: [], handlers: [], rules: [], prompts: [] });
    expect(minimal.persona).toEqual({ role: "", identity: "", communication_style: "", principles: "" });
  });

  it("prefers the <agent> inside a ```xml fence over one mentioned in the prose", () => {
    const text = 'The `<agent name="Wrong">` tag is explained below.\n\n```xml\n<agent name="Right"></agent>\n```\n';
    expect(parsed(text).name).toBe("Right");
  });

  it("reads a truncated file up to where it stops", () => {
    const cut = fixture("v6-compiled.md").slice(0, fixture("v6-compiled.md").indexOf("<item cmd=\"*deep\""));
    const agent = parsed(cut);
    expect(agent.menu.map((item) => item.trigger)).toEqual(["*help", "*plan", "*check", "*retro", "*doc"]);
    expect(agent.notes.some((note) => note.message.includes("not closed before the end of the text"))).toBe(true);
  });
});

describe("parseAgentFile: rejections (never a half agent)", () => {
  it("rejects an agent with neither a name nor an id", () => {
    expect(rejection(`<agent title="Nameless" icon="x"><menu/></agent>`)).toBe("the <agent> element has neither a name nor an id");
  });

  it("rejects text that holds no agent", () => {
    expect(rejection("# Just a README\n\nNothing to see.")).toBe("no <agent> element and no YAML agent block");
    expect(rejection("")).toBe("empty file");
    expect(rejection("abc\u0000def")).toBe("binary content (NUL bytes)");
  });

  it("rejects a v4 block that is not valid YAML, with the YAML error", () => {
    expect(rejection("```yaml\nagent: [unclosed\n```\n")).toMatch(/^YAML block is not valid: /);
  });

  it("never evaluates ---js front matter", () => {
    const marker = "__registryFrontMatterRan";
    const text = `---js\n{ globalThis.${marker} = true }\n---\n<agent name="Safe"/>\n`;
    const agent = parsed(text);
    expect((globalThis as Record<string, unknown>)[marker]).toBeUndefined();
    expect(agent.notes.map((note) => note.message)).toContain('front matter "---js" ignored (only YAML is read, nothing is evaluated)');
  });
});

describe("parseAgentFile: v4", () => {
  it("reads agent, persona, activation-instructions, commands and dependencies from the YAML block", () => {
    const agent = parsed(fixture("v4-agent.md"));
    expect(agent).toMatchObject({ format: "v4", id: "fixture-pm", name: "Paula", title: "Fixture Product Manager", icon: "📋", description: "Use for fixture product work" });
    expect(agent.criticalActions).toEqual(["STEP 1: Read THIS ENTIRE FILE", "STEP 2: Adopt the persona defined below", "STEP 3: Greet user with your name/role and run `*help`"]);
    expect(agent.persona).toEqual({
      role: "Fixture PM",
      identity: "Product manager of fixtures\nFocus: Writing fixture PRDs",
      communication_style: "Analytical, inquisitive",
      principles: "Understand why\nChampion the user",
    });
    expect(agent.menu.map((item) => item.trigger)).toEqual(["help", "create-prd", "research {topic}", "develop", "exit"]);
    expect(agent.menu[3]?.description).toBe("order-of-execution: Read task → Implement → Test blocking: HALT for missing config");
    expect(agent.rules).toEqual(["Dependencies map to {root}/{type}/{name}", "Match user requests to your commands flexibly."]);
    expect(agent.handlers[0]?.instructions).toContain("tasks: create-doc.md\ntemplates: prd-tmpl.yaml");
  });

  it("reads the expansion-pack command strings, keeping * and arguments", () => {
    const agent = parsed(fixture("v4-strings.md"));
    expect(agent.menu).toEqual([
      { trigger: "*help", description: "Show numbered list of available commands for selection" },
      { trigger: "*brainstorm {topic}", description: "Facilitate structured brainstorming" },
      { trigger: "*exit", description: "Say goodbye" },
    ]);
  });
});

describe("parseAgentFile: v6 source (*.agent.yaml)", () => {
  const source = [
    "agent:",
    "  metadata: { id: bmad/x/agents/y.md, name: Yara, title: Source Agent, icon: 🧬 }",
    "  persona: { role: r, identity: i, communication_style: c, principles: [one, two] }",
    "  critical_actions: ['Load {project-root}/bmad/x/config.yaml']",
    "  menu:",
    "    - { trigger: plan, workflow: '{project-root}/w.yaml', description: Plan it }",
    "    - { trigger: later, workflow: todo, description: Later }",
    "  prompts: [{ id: p1, content: Do it }]",
  ].join("\n");

  it("reads metadata, persona, critical actions, menu and prompts", () => {
    const agent = parsed(source, "y.agent.yaml");
    expect(agent).toMatchObject({ format: "v6-source", id: "bmad/x/agents/y.md", name: "Yara", title: "Source Agent", icon: "🧬" });
    expect(agent.persona.principles).toBe("one\ntwo");
    expect(agent.criticalActions).toEqual(["Load {project-root}/bmad/x/config.yaml"]);
    expect(agent.menu).toEqual([
      { trigger: "plan", description: "Plan it", workflow: "{project-root}/w.yaml" },
      { trigger: "later", description: "Later", workflow: "todo", todo: true },
    ]);
    expect(agent.prompts).toEqual([{ id: "p1", content: "Do it" }]);
  });

  it("rejects a customize file whose metadata names no one", () => {
    expect(rejection('agent:\n  metadata:\n    name: ""\n', "x.customize.yaml")).toBe("agent.metadata has neither a name nor an id");
  });
});
