/** Small hand-written files in the shapes the BMAD installers leave (docs/bmad-releases.md); the words are ours. */

/** A 4.x agent: markdown with one YAML block. */
export function v4Agent(id: string, name: string): string {
  return [
    `# ${id}`,
    "",
    "```yaml",
    "activation-instructions:",
    "  - Read this whole file",
    "agent:",
    `  name: ${name}`,
    `  id: ${id}`,
    `  title: ${name} the Tester`,
    "  icon: 🦔",
    "persona:",
    "  role: Tester",
    "commands:",
    "  - help: Show the commands",
    "```",
    "",
  ].join("\n");
}

/** A 6.x compiled XML agent; `menu` holds extra `<item>` lines. */
export function xmlAgent(id: string, name: string, menu: string[] = []): string {
  return [
    "---",
    `name: "${id}"`,
    `description: "${name} helps"`,
    "---",
    "",
    "```xml",
    `<agent id="${id}.agent.yaml" name="${name}" title="${name} Title" icon="🦉">`,
    "<activation critical=\"MANDATORY\"><step n=\"1\">Load {project-root}/_bmad/bmm/config.yaml</step></activation>",
    `<persona><role>${name} role</role><identity>i</identity><communication_style>c</communication_style><principles>p</principles></persona>`,
    "<menu>",
    '  <item cmd="MH or fuzzy match on help">[MH] Menu help</item>',
    ...menu,
    "</menu>",
    "</agent>",
    "```",
    "",
  ].join("\n");
}

/** A 6.3-6.4 agent skill: persona in markdown sections and a capabilities table. */
export function markdownSkill(skill: string, name: string, extraCapability = ""): string {
  return [
    "---",
    `name: ${skill}`,
    `description: Talk to ${name}.`,
    "---",
    "",
    `# ${name}`,
    "",
    "## Identity",
    "",
    `${name} reads maps and finds paths.`,
    "",
    "## Communication Style",
    "",
    "Short and warm.",
    "",
    "## Principles",
    "",
    "- Check the ground first.",
    "- Say what you saw,",
    "  not what you guessed.",
    "",
    "## Capabilities",
    "",
    "| Code | Description | Skill or Prompt |",
    "|------|-------------|-----------------|",
    "| MP | Draw a map | skill: bmad-draw-map |",
    "| NT | Take notes | prompt: notes.md |",
    extraCapability,
    "",
    "## On Activation",
    "",
    "1. Load config from `{project-root}/_bmad/bmm/config.yaml`.",
    "",
  ].join("\n");
}

/** A 6.5+ agent skill's SKILL.md: the persona lives in customize.toml. */
export function customizedSkill(skill: string, name: string, title: string): string {
  return ["---", `name: ${skill}`, `description: ${title} for the tests.`, "---", "", `# ${name} — ${title}`, "", "## On Activation", "", "Resolve the agent block.", ""].join("\n");
}

/** A 6.5+ `customize.toml` with an `[agent]` table and two menu items. */
export function agentCustomization(name: string, title: string, icon: string): string {
  return [
    "[agent]",
    `name = "${name}"`,
    `title = "${title}"`,
    `icon = "${icon}"`,
    'role = "Keeps the lighthouse."',
    'identity = "Has watched ships for years."',
    'communication_style = "Calm."',
    'principles = ["Keep the light on.", "Log every ship."]',
    'persistent_facts = ["file:{project-root}/docs/harbour.md"]',
    'activation_steps_prepend = ["Check the weather."]',
    "activation_steps_append = []",
    "",
    "[[agent.menu]]",
    'code = "LS"',
    'description = "Log a ship"',
    'skill = "bmad-log-ship"',
    "",
    "[[agent.menu]]",
    'code = "WX"',
    'description = "Read the weather"',
    'prompt = "Look at the sky and report."',
    "",
  ].join("\n");
}

/** An agent launcher skill (6.0.x tool skills, 6.2 `bmad-<agent>`): it only loads the XML agent. */
export function launcherSkill(skill: string, agentFile: string): string {
  return ["---", `name: ${skill}`, "description: launcher", "---", "", "<agent-activation>", `1. LOAD the FULL agent file from {project-root}/${agentFile}`, "</agent-activation>", ""].join("\n");
}
