import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBmadTree, type BmadTree } from "../testing/bmad-tree.js";
import { agentCustomization, customizedSkill, launcherSkill, markdownSkill, v4Agent, xmlAgent } from "../testing/install-files.js";
import { AgentRegistry } from "./agent-registry.js";
import type { DiscoveryLimits } from "../config.js";

const limits: DiscoveryLimits = { maxFileBytes: 64 * 1024, maxSources: 100, maxAgentsPerSource: 20 };
const manifest = (version: string) => `installation:\n  version: ${version}\nmodules:\n  - name: bmm\n    version: ${version}\n`;

describe("AgentRegistry: installed BMAD of every release (docs/bmad-releases.md)", () => {
  let tree: BmadTree;
  let registry: AgentRegistry;
  beforeEach(async () => {
    tree = await createBmadTree();
    registry = new AgentRegistry(tree.root, limits);
  });
  afterEach(() => tree.cleanup());

  const ids = () => registry.listAgents().map((agent) => agent.id);
  const bundle = (path: string) => registry.listBundles().bundles.find((entry) => entry.path === path);
  const warningsOf = (path: string) => bundle(path)?.warnings.map((warning) => `${warning.code} ${warning.message}`) ?? [];

  it("reads 4.x .bmad-core as module bmm and an expansion pack as its own module, with the release", async () => {
    await tree.write({
      ".bmad-core/install-manifest.yaml": "version: 4.40.1\nfiles: []\n",
      ".bmad-core/core-config.yaml": "devStoryLocation: docs/stories\n",
      ".bmad-core/agents/owl.md": v4Agent("owl", "Olive"),
      ".bmad-garden/agents/gnome.md": v4Agent("gnome", "Gus"),
    });
    await registry.rescan();
    expect(ids()).toEqual(["bmm/owl", "garden/gnome"]);
    expect(registry.getAgent("bmm/owl")?.definition).toMatchObject({ name: "Olive", icon: "🦔", format: "v4", release: "4.40.1", bundleName: "bmm", bundlePath: ".bmad-core", filePath: ".bmad-core/agents/owl.md" });
    expect(bundle(".bmad-core")).toMatchObject({ name: "bmm", status: "ok", version: "4.40.1", agents: ["bmm/owl"], warnings: [] });
    expect(registry.listAgents()[0]).toMatchObject({ format: "v4", release: "4.40.1" });
  });

  it("reads _bmad/ XML agents through agent-manifest.csv paths, nested folders included, and skips the installer's folders", async () => {
    await tree.write({
      "_bmad/_config/manifest.yaml": manifest("6.0.9"),
      "_bmad/_config/agent-manifest.csv": [
        "name,displayName,title,icon,module,path",
        '"owl","Olive","Owl","🦉","bmm","_bmad/bmm/agents/owl.md"',
        '"scribe","Sam","Scribe","📜","bmm","_bmad/bmm/agents/scribe/scribe.md"',
      ].join("\n"),
      "_bmad/bmm/config.yaml": "user_name: Ada\n",
      "_bmad/bmm/agents/owl.md": xmlAgent("owl", "Olive", ['  <item cmd="BS or fuzzy match on brainstorm" exec="skill:bmad-brainstorm">[BS] Brainstorm</item>']),
      "_bmad/bmm/agents/scribe/scribe.md": xmlAgent("scribe", "Sam"),
      "_bmad/core/config.yaml": "user_name: Ada\n",
      "_bmad/core/agents/master.md": xmlAgent("master", "Max"),
      "_bmad/_memory/scribe-sidecar/notes.md": "# notes\n",
      "_bmad/custom/ignored/agents/x.md": xmlAgent("x", "X"),
    });
    await registry.rescan();
    expect(ids()).toEqual(["bmm/owl", "bmm/scribe", "core/master"]);
    expect(registry.getAgent("bmm/scribe")?.definition).toMatchObject({ release: "6.0.9", format: "v6", bundlePath: "_bmad/bmm", filePath: "_bmad/bmm/agents/scribe/scribe.md" });
    expect(registry.getAgent("bmm/owl")?.definition.menu[1]).toEqual({
      trigger: "BS or fuzzy match on brainstorm",
      description: "[BS] Brainstorm",
      exec: "skill:bmad-brainstorm",
      skill: "bmad-brainstorm",
    });
    expect(registry.listBundles().bundles.map((entry) => `${entry.name}:${entry.path}:${entry.version}`)).toEqual(["bmm:_bmad/bmm:6.0.9", "core:_bmad/core:6.0.9"]);
  });

  it("walks agents/ and agents/<name>/<name>.md when there is no agent-manifest.csv", async () => {
    await tree.write({
      "_bmad/bmm/config.yaml": "a: 1\n",
      "_bmad/bmm/agents/owl.md": xmlAgent("owl", "Olive"),
      "_bmad/bmm/agents/scribe/scribe.md": xmlAgent("scribe", "Sam"),
      "_bmad/bmm/agents/scribe/notes.md": "# not an agent\n",
    });
    await registry.rescan();
    expect(ids()).toEqual(["bmm/owl", "bmm/scribe"]);
  });

  it("reads a 6.3-style agent skill from its markdown sections and capabilities table", async () => {
    await tree.write({
      "_bmad/_config/manifest.yaml": manifest("6.3.1"),
      "_bmad/bmm/config.yaml": "a: 1\n",
      "_bmad/core/config.yaml": "a: 1\n",
      ".claude/skills/bmad-agent-mapper/SKILL.md": markdownSkill("bmad-agent-mapper", "Mina"),
      ".claude/skills/bmad-agent-mapper/bmad-skill-manifest.yaml": "type: agent\ntitle: Cartographer\nicon: \"🗺️\"\nrole: Map maker\nmodule: bmm\n",
      ".claude/skills/bmad-draw-map/SKILL.md": "---\nname: bmad-draw-map\n---\n# Draw\n",
    });
    await registry.rescan();
    expect(ids()).toEqual(["bmm/mapper"]);
    const definition = registry.getAgent("bmm/mapper")?.definition;
    expect(definition).toMatchObject({
      name: "Mina",
      title: "Cartographer",
      icon: "🗺️",
      description: "Talk to Mina.",
      format: "skill",
      release: "6.3.1",
      bundleName: "bmm",
      bundlePath: ".claude/skills/bmad-agent-mapper",
      filePath: ".claude/skills/bmad-agent-mapper/SKILL.md",
      skill: { name: "bmad-agent-mapper", path: ".claude/skills/bmad-agent-mapper" },
      persona: { role: "Map maker", identity: "Mina reads maps and finds paths.", communication_style: "Short and warm.", principles: "Check the ground first.\nSay what you saw, not what you guessed." },
    });
    expect(definition?.menu).toEqual([
      { trigger: "MP", description: "Draw a map", skill: "bmad-draw-map" },
      { trigger: "NT", description: "Take notes", prompt: "Follow the instructions in {project-root}/.claude/skills/bmad-agent-mapper/notes.md" },
    ]);
    expect(bundle("_bmad/bmm")).toMatchObject({ status: "ok", agents: ["bmm/mapper"], warnings: [] });
    expect(warningsOf("_bmad/core")).toEqual([expect.stringMatching(/^PARSE_NOTE _bmad\/core serves no agents/)]);
  });

  it("merges a 6.5+ agent's customization layers and takes the module and defaults from _bmad/config.toml", async () => {
    await tree.write({
      "_bmad/_config/manifest.yaml": manifest("6.12.0"),
      "_bmad/config.toml": '[agents.bmad-cis-agent-keeper]\nmodule = "cis"\nname = "Kit"\ndescription = "Keeps the light."\n',
      "_bmad/custom/config.toml": '[agents.bmad-cis-agent-keeper]\ndescription = "Keeps the light, for the team."\n',
      "_bmad/custom/bmad-cis-agent-keeper.toml": '[agent]\nicon = "🗼"\nprinciples = ["Write it down."]\n\n[[agent.menu]]\ncode = "LS"\ndescription = "Log a ship, the team way"\nskill = "team-log"\n\n[[agent.menu]]\ncode = "NB"\ndescription = "Ring the bell"\nprompt = "Ring it twice."\n',
      "_bmad/custom/bmad-cis-agent-keeper.user.toml": 'agent.persistent_facts = ["I prefer short answers."]\n',
      ".claude/skills/bmad-cis-agent-keeper/SKILL.md": customizedSkill("bmad-cis-agent-keeper", "Kit", "Lighthouse Keeper"),
      ".claude/skills/bmad-cis-agent-keeper/customize.toml": agentCustomization("Kit", "Lighthouse Keeper", "💡"),
      ".claude/skills/bmad-log-ship/SKILL.md": "---\nname: bmad-log-ship\n---\n",
      ".claude/skills/bmad-log-ship/customize.toml": '[workflow]\nsteps = "steps/"\n',
      ".claude/skills/bmad-agent-builder/SKILL.md": "---\nname: bmad-agent-builder\n---\n",
      ".claude/skills/bmad-agent-builder/customize.toml": "[workflow]\n",
    });
    await registry.rescan();
    expect(ids()).toEqual(["cis/keeper"]);
    const record = registry.getAgent("cis/keeper");
    expect(record?.definition).toMatchObject({
      name: "Kit",
      title: "Lighthouse Keeper",
      icon: "🗼",
      description: "Keeps the light, for the team.",
      bundleName: "cis",
      bundlePath: ".claude/skills/bmad-cis-agent-keeper",
      persona: { role: "Keeps the lighthouse.", principles: "Keep the light on.\nLog every ship.\nWrite it down." },
      criticalActions: ["Check the weather."],
    });
    expect(record?.definition.menu).toEqual([
      { trigger: "LS", description: "Log a ship, the team way", skill: "team-log" },
      { trigger: "WX", description: "Read the weather", prompt: "Look at the sky and report." },
      { trigger: "NB", description: "Ring the bell", prompt: "Ring it twice." },
    ]);
    expect(record?.parsed.skill).toEqual({
      persistentFacts: ["file:{project-root}/docs/harbour.md", "I prefer short answers."],
      activationStepsPrepend: ["Check the weather."],
      activationStepsAppend: [],
    });
    expect(bundle("_bmad/cis")).toMatchObject({ name: "cis", status: "ok", version: "6.12.0", agents: ["cis/keeper"], warnings: [] });
  });

  it("serves one copy of a skill installed in several tool folders, and says so only when the copies differ", async () => {
    const skill = customizedSkill("bmad-agent-owl", "Olive", "Owl");
    const customization = agentCustomization("Olive", "Owl", "🦉");
    await tree.write({
      ".agents/skills/bmad-agent-owl/SKILL.md": skill,
      ".agents/skills/bmad-agent-owl/customize.toml": customization,
      ".claude/skills/bmad-agent-owl/SKILL.md": skill,
      ".claude/skills/bmad-agent-owl/customize.toml": customization,
      ".cursor/skills/bmad-agent-owl/SKILL.md": skill,
      ".cursor/skills/bmad-agent-owl/customize.toml": customization.replace("🦉", "🐦"),
    });
    await registry.rescan();
    expect(ids()).toEqual(["bmm/owl"]);
    expect(registry.getAgent("bmm/owl")?.definition).toMatchObject({ icon: "🦉", bundlePath: ".agents/skills/bmad-agent-owl" });
    expect(warningsOf("_bmad/bmm")).toEqual([
      "PARSE_NOTE .cursor/skills/bmad-agent-owl/customize.toml differs from .agents/skills/bmad-agent-owl/customize.toml; the copy in .agents/skills/bmad-agent-owl is served",
    ]);
  });

  it("does not list launcher skills as agents: the XML agent they load is the agent", async () => {
    await tree.write({
      "_bmad/bmm/config.yaml": "a: 1\n",
      "_bmad/bmm/agents/owl.md": xmlAgent("owl", "Olive"),
      ".agents/skills/bmad-agent-bmm-owl/SKILL.md": launcherSkill("bmad-agent-bmm-owl", "_bmad/bmm/agents/owl.md"),
      ".claude/skills/bmad-owl/SKILL.md": launcherSkill("bmad-owl", "_bmad/bmm/agents/owl.md"),
      ".claude/skills/bmad-agent-bmm-ghost/SKILL.md": launcherSkill("bmad-agent-bmm-ghost", "_bmad/bmm/agents/ghost.md"),
    });
    await registry.rescan();
    expect(ids()).toEqual(["bmm/owl"]);
    expect(warningsOf("_bmad/bmm")).toEqual([
      "PARSE_NOTE .claude/skills/bmad-agent-bmm-ghost/SKILL.md launches _bmad/bmm/agents/ghost.md, which is not an agent found in this install",
    ]);
  });

  it("reports every malformed piece with its file and reason, and keeps serving the rest", async () => {
    await tree.write({
      "_bmad/bmm/config.yaml": "a: 1\n",
      "_bmad/custom/bmad-agent-fox.toml": "[agent\nicon = 1\n",
      ".claude/skills/bmad-agent-fox/SKILL.md": customizedSkill("bmad-agent-fox", "Fern", "Fox"),
      ".claude/skills/bmad-agent-fox/customize.toml": agentCustomization("Fern", "Fox", "🦊"),
      ".claude/skills/bmad-agent-bad/SKILL.md": customizedSkill("bmad-agent-bad", "Bea", "Bad"),
      ".claude/skills/bmad-agent-bad/customize.toml": "[agent]\nname = \n",
      ".claude/skills/bmad-agent-nameless/SKILL.md": "# Nobody\n\n## Identity\n\nNo front matter.\n",
      "_bmad/broken/config.yaml": "a: 1\n",
      "_bmad/broken/agents/not-an-agent.md": "# just notes\n",
    });
    await registry.rescan();
    expect(ids()).toEqual(["bmm/fox"]);
    expect(registry.getAgent("bmm/fox")?.definition.icon).toBe("🦊");
    const bmm = warningsOf("_bmad/bmm");
    expect(bmm).toContainEqual(expect.stringMatching(/^AGENT_INVALID \.claude\/skills\/bmad-agent-bad\/customize\.toml: not valid TOML/));
    expect(bmm).toContainEqual(expect.stringMatching(/^AGENT_INVALID \.claude\/skills\/bmad-agent-nameless\/SKILL\.md: SKILL\.md has no front matter name/));
    expect(bmm).toContainEqual(expect.stringMatching(/^AGENT_INVALID _bmad\/custom\/bmad-agent-fox\.toml: not valid TOML/));
    expect(bundle("_bmad/broken")).toMatchObject({ status: "invalid" });
    expect(warningsOf("_bmad/broken")).toEqual([
      "AGENT_INVALID _bmad/broken/agents/not-an-agent.md: no <agent> element and no YAML agent block",
      "AGENT_INVALID _bmad/broken has 1 agent file(s) and none could be read as an agent",
    ]);
  });

  it("reports manifest rows whose module folder is gone, and caps the skill agents a module serves", async () => {
    const small = new AgentRegistry(tree.root, { ...limits, maxAgentsPerSource: 1 });
    await tree.write({
      "_bmad/_config/agent-manifest.csv": 'name,module,path\n"x","gone","_bmad/gone/agents/x.md"\n',
      "_bmad/bmm/config.yaml": "a: 1\n",
      ".claude/skills/bmad-agent-fox/SKILL.md": customizedSkill("bmad-agent-fox", "Fern", "Fox"),
      ".claude/skills/bmad-agent-owl/SKILL.md": customizedSkill("bmad-agent-owl", "Olive", "Owl"),
    });
    await small.rescan();
    expect(small.listAgents().map((agent) => agent.id)).toEqual(["bmm/fox"]);
    expect(small.listBundles().warnings.map((warning) => warning.message)).toEqual([
      "_bmad/_config/agent-manifest.csv lists 1 agent(s) of module gone, whose folder _bmad/gone is missing",
    ]);
    expect(small.listBundles().bundles.find((entry) => entry.path === "_bmad/bmm")?.warnings.map((warning) => warning.code)).toEqual(["LIMIT_REACHED"]);
  });

  it("warns once when no layout is there, naming what it looked for, and not when any one is", async () => {
    await tree.write({ ".claude/skills/bmad-help/SKILL.md": "---\nname: bmad-help\n---\n", "src/index.ts": "\n" });
    await registry.rescan();
    expect(registry.listBundles().warnings.map((warning) => warning.message)).toEqual([expect.stringMatching(/no BMAD install: looked for _bmad\//)]);
    await tree.write({ ".bmad-core/agents/owl.md": v4Agent("owl", "Olive") });
    await registry.rescan();
    expect(registry.listBundles().warnings).toEqual([]);
  });

  it("sees a team override change on the next scan", async () => {
    await tree.write({
      ".claude/skills/bmad-agent-owl/SKILL.md": customizedSkill("bmad-agent-owl", "Olive", "Owl"),
      ".claude/skills/bmad-agent-owl/customize.toml": agentCustomization("Olive", "Owl", "🦉"),
      "_bmad/bmm/config.yaml": "a: 1\n",
    });
    await registry.rescan();
    await tree.write({ "_bmad/custom/bmad-agent-owl.toml": '[agent]\nicon = "🌙"\n' });
    const change = await registry.rescan();
    expect(change?.updated).toEqual(["bmm/owl"]);
    expect(registry.getAgent("bmm/owl")?.definition.icon).toBe("🌙");
  });
});
