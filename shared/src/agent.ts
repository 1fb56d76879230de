import { z } from "zod";

/** Where an agent comes from: a bundle under bmad/custom/bundles, or an installed BMAD module. */
export const AgentSource = z.enum(["bundle", "module"]);
export type AgentSource = z.infer<typeof AgentSource>;

/** What the agent list shows: enough to pick an agent. */
export const AgentSummary = z.object({
  id: z.string().min(1),
  name: z.string(),
  title: z.string(),
  icon: z.string(),
  description: z.string(),
  bundleName: z.string(),
  source: AgentSource,
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
  /** True when a target is the placeholder `todo` (BMAD's "not implemented yet"); the item is kept as written. */
  todo: z.boolean().optional(),
});
export type MenuItem = z.infer<typeof MenuItem>;

/**
 * Which BMAD dialect an agent file is written in: `v6` compiled (`<activation>`, `<menu><item>`), `v6-early`
 * (`<critical-actions><i>`, `<cmds><c>`), `v6-source` (`*.agent.yaml`), or `v4` (markdown with one YAML block).
 */
export const AgentFormat = z.enum(["v6", "v6-early", "v6-source", "v4"]);
export type AgentFormat = z.infer<typeof AgentFormat>;

/** A parsed agent, as the registry serves it. Paths are relative to BMAD_ROOT, never host paths. */
export const AgentDefinition = AgentSummary.extend({
  persona: Persona,
  criticalActions: z.array(z.string()),
  menu: z.array(MenuItem),
  /** The bundle's folder relative to BMAD_ROOT, e.g. `bmad/custom/bundles/sample`; it becomes `{bundle-root}`. */
  bundlePath: z.string(),
  /** The agent file relative to BMAD_ROOT. */
  filePath: z.string(),
  /** The dialect the agent file was written in (informational; absent from older registries). */
  format: AgentFormat.optional(),
});
export type AgentDefinition = z.infer<typeof AgentDefinition>;
