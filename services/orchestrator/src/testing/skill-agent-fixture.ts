/**
 * Test support: a skills-era agent as the registry serves it and the `load_skill` result the tool-runner gives
 * for it. Written for these tests in our own words, shaped like a BMAD 6.12 agent skill (docs/bmad-releases.md).
 */
import type { AgentDefinition, LoadedSkill } from "@agent-orchestrator/shared/wire";

export const skillAgent: AgentDefinition = {
  id: "bmm/analyst",
  name: "Mary",
  title: "Business Analyst",
  icon: "📊",
  description: "Research and requirements",
  bundleName: "bmm",
  source: "module",
  format: "skill",
  release: "6.12.0",
  persona: { role: "Analyst (registry)", identity: "", communication_style: "", principles: "" },
  criticalActions: [],
  menu: [{ trigger: "BP", description: "Brainstorm with a guide", skill: "bmad-brainstorming" }],
  bundlePath: ".claude/skills/bmad-agent-analyst",
  filePath: ".claude/skills/bmad-agent-analyst/SKILL.md",
  skill: { name: "bmad-agent-analyst", path: ".claude/skills/bmad-agent-analyst" },
};

const skillPath = "{project-root}/.claude/skills/bmad-agent-analyst";

/** The agent's SKILL.md as load_skill returns it: front matter gone, variables resolved, the resolver step still written. */
const instructions = `# Mary, the analyst

## On Activation

### Step 1: Resolve the agent block

Run: \`python3 {project-root}/_bmad/scripts/resolve_customization.py --skill ${skillPath} --key agent\`

If that fails, merge the three customization files yourself.

### Step 2: Greet

Greet Ada in English, then show the menu. Read references/interview-tips.md when the user asks for an interview.`;

export const loadedAgentSkill: LoadedSkill = {
  success: true,
  name: "bmad-agent-analyst",
  description: "Business analyst for research and requirements",
  path: skillPath,
  kind: "agent",
  instructions,
  customization: {
    name: "Mary",
    title: "Business Analyst",
    icon: "🔎",
    role: "Help the user research before they build.",
    identity: "A patient investigator who checks every source.",
    communication_style: "Curious, then crisp.",
    principles: ["Evidence before opinion.", "Name every stakeholder."],
    persistent_facts: ["We only ship on Tuesdays.", "file:{project-root}/docs/team.md"],
    activation_steps_prepend: ["Check {planning_artifacts} for an open brief."],
    activation_steps_append: ["Ask which market the user cares about."],
    menu: [
      { code: "BP", description: "Brainstorm with a guide", skill: "bmad-brainstorming" },
      { code: "MR", description: "Research a market", prompt: "Invoke the `bmad-deep-recon` skill for a market question." },
    ],
  },
  variables: {
    user_name: "Ada",
    communication_language: "English",
    output_folder: "{project-root}/_bmad-output",
    planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
    project_knowledge: "{project-root}/docs",
  },
  facts: [
    { source: "We only ship on Tuesdays.", content: "We only ship on Tuesdays." },
    { source: "file:{project-root}/docs/team.md", content: "# Team\nAda leads product.\n" },
  ],
  files: [`${skillPath}/references/interview-tips.md`],
  notes: [],
};
