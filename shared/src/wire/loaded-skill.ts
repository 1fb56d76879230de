import { z } from "zod";

/**
 * A successful `load_skill` result (docs/design.md "Tools" and "Activation by the system"): what the model needs to run a BMAD skill, with
 * the work BMAD would ask it to do by script (resolving customization, loading config and persistent facts)
 * already done by the system. Every path in it is virtual. The orchestrator also uses it to activate a
 * skills-era agent at the start of a turn.
 */
export const LoadedSkill = z.object({
  success: z.literal(true),
  name: z.string(),
  description: z.string(),
  /** the skill's folder, e.g. `{project-root}/.claude/skills/bmad-prd`; bare paths in the instructions resolve from it */
  path: z.string(),
  /** `agent` or `workflow` when the skill's customize.toml has that table; `skill` otherwise */
  kind: z.enum(["agent", "workflow", "skill"]),
  /** SKILL.md without its front matter, with `{skill-root}`, `{skill-name}`, `{agent.x}`/`{workflow.x}` and config variables resolved */
  instructions: z.string(),
  /** the merged `[agent]` or `[workflow]` table (customize.toml → `_bmad/custom/<skill>.toml` → `.user.toml`) */
  customization: z.record(z.string(), z.unknown()),
  /** the config variables in effect, output variables already mapped into the session folder */
  variables: z.record(z.string(), z.string()),
  /** persistent facts: literal ones as written, `file:` ones with the content of each file they matched */
  facts: z.array(z.object({ source: z.string(), content: z.string() })),
  /** the skill's other files (steps, references, assets, scripts), as virtual paths for read_file */
  files: z.array(z.string()),
  /** what could not be done and was skipped (a missing layer, a denied fact file), for the model and the operator */
  notes: z.array(z.string()),
});
export type LoadedSkill = z.infer<typeof LoadedSkill>;
