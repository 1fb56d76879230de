import { z } from "zod";

/**
 * Where an agent comes from: a bundle under bmad/custom/bundles, or a module of a BMAD project installed by
 * the official installer (any release: `.bmad-core/`, `bmad/`, `_bmad/`, or skills in a tool folder).
 */
export const AgentSource = z.enum(["bundle", "module"]);
export type AgentSource = z.infer<typeof AgentSource>;

/**
 * Which BMAD dialect an agent file is written in: `v6` compiled (`<activation>`, `<menu><item>`), `v6-early`
 * (`<critical-actions><i>`, `<cmds><c>`), `v6-source` (`*.agent.yaml`), `v4` (markdown with one YAML block),
 * or `skill` (BMAD 6.3+: the agent is an Agent Skill, a `SKILL.md` folder, customised by `customize.toml`).
 */
export const AgentFormat = z.enum(["v6", "v6-early", "v6-source", "v4", "skill"]);
export type AgentFormat = z.infer<typeof AgentFormat>;

/** What the agent list shows: enough to pick an agent. */
export const AgentSummary = z.object({
  id: z.string().min(1),
  name: z.string(),
  title: z.string(),
  icon: z.string(),
  description: z.string(),
  /** the bundle's name, or the installed module's code (`bmm`, `core`, `cis`, …) */
  bundleName: z.string(),
  source: AgentSource,
  /** the dialect of the agent's file (absent from older registries) */
  format: AgentFormat.optional(),
  /** the BMAD release that installed the agent, when the install says (e.g. `6.12.0`) */
  release: z.string().optional(),
});
export type AgentSummary = z.infer<typeof AgentSummary>;

export const Persona = z.object({
  role: z.string(),
  identity: z.string(),
  communication_style: z.string(),
  principles: z.string(),
});
export type Persona = z.infer<typeof Persona>;

/**
 * One menu entry. `trigger` is what the user types (e.g. `*product-brief`); the optional targets are the
 * attributes BMAD menu items carry (paths are kept as written, with their `{…}` variables).
 */
export const MenuItem = z.object({
  trigger: z.string().min(1),
  description: z.string(),
  workflow: z.string().optional(),
  validateWorkflow: z.string().optional(),
  exec: z.string().optional(),
  tmpl: z.string().optional(),
  data: z.string().optional(),
  action: z.string().optional(),
  /** the skill the item invokes (6.2 `exec="skill:x"`, 6.3 capabilities tables, 6.5+ `[[agent.menu]] skill`) */
  skill: z.string().optional(),
  /** instructions the item runs as written (6.5+ `[[agent.menu]] prompt`) */
  prompt: z.string().optional(),
  /** True when a target is the placeholder `todo` (BMAD's "not implemented yet"); the item is kept as written. */
  todo: z.boolean().optional(),
});
export type MenuItem = z.infer<typeof MenuItem>;

/** A parsed agent, as the registry serves it. Paths are relative to BMAD_ROOT, never host paths. */
export const AgentDefinition = AgentSummary.extend({
  persona: Persona,
  criticalActions: z.array(z.string()),
  menu: z.array(MenuItem),
  /** The bundle's folder relative to BMAD_ROOT, e.g. `bmad/custom/bundles/sample`; it becomes `{bundle-root}`. */
  bundlePath: z.string(),
  /** The agent file relative to BMAD_ROOT. */
  filePath: z.string(),
  /**
   * For a skills-era agent (`format: "skill"`): the skill's name and its folder relative to BMAD_ROOT
   * (`.claude/skills/bmad-agent-analyst`). The system activates it through `load_skill` at every turn start.
   */
  skill: z.object({ name: z.string().min(1), path: z.string().min(1) }).optional(),
  /**
   * Changes whenever a file the agent's start reads changes (mtime, size, inode), so the orchestrator may keep
   * the start's result until it does. Absent when the start must run every turn: a skill agent, or a start
   * that reads a file outside the BMAD trees the registry watches.
   */
  startFingerprint: z.string().min(1).optional(),
});
export type AgentDefinition = z.infer<typeof AgentDefinition>;
