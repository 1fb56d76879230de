import { z } from "zod";
import { AgentDefinition, AgentFormat, AgentSource, AgentSummary, MenuItem } from "./agent.js";
import { skillNamePattern } from "./skill-name-pattern.js";
import { ErrorReply } from "./error-code.js";

export const ListAgentsRequest = z.object({
  bundle: z.string().optional(),
});
export type ListAgentsRequest = z.infer<typeof ListAgentsRequest>;

export const ListAgentsReply = z.union([
  z.object({ success: z.literal(true), agents: z.array(AgentSummary) }),
  ErrorReply,
]);
export type ListAgentsReply = z.infer<typeof ListAgentsReply>;

export const GetAgentRequest = z.object({
  agent_id: z.string().min(1).max(256),
});
export type GetAgentRequest = z.infer<typeof GetAgentRequest>;

export const GetAgentReply = z.union([z.object({ success: z.literal(true), agent: AgentDefinition }), ErrorReply]);
export type GetAgentReply = z.infer<typeof GetAgentReply>;

/**
 * Why the registry skipped or doubted something. A warning never stops discovery: the bundle, module or agent
 * it names is left out (or served in its last good version) and everything else is served.
 */
export const RegistryWarningCode = z.enum([
  /** bundle.yaml (or a module's config.yaml) is missing, is not YAML, or fails the manifest schema */
  "BUNDLE_INVALID",
  /** a bundle name or agent id already taken by a source that sorts earlier; this one is left out */
  "BUNDLE_CONFLICT",
  /** an agent file that cannot be read as an agent */
  "AGENT_INVALID",
  /** a symlinked bundle folder, or a path that leaves its bundle or module */
  "PATH_REJECTED",
  /** a file over the size cap */
  "FILE_TOO_LARGE",
  /** a count cap (bundles, agents per source) was reached; the rest is left out */
  "LIMIT_REACHED",
  /** a file changed into something invalid; its last good version is still served */
  "STALE_VERSION",
  /** a menu item whose target is the placeholder `todo` */
  "PLACEHOLDER",
  /** something odd the tolerant parser worked around (an unclosed tag, ignored front matter, an unknown key) */
  "PARSE_NOTE",
]);
export type RegistryWarningCode = z.infer<typeof RegistryWarningCode>;

export const RegistryWarning = z.object({
  code: RegistryWarningCode,
  message: z.string(),
  /** the file or folder concerned, relative to BMAD_ROOT */
  path: z.string().optional(),
});
export type RegistryWarning = z.infer<typeof RegistryWarning>;

/** One agent source: a bundle under `bmad/custom/bundles`, or an installed module (`_bmad/<module>`, `bmad/<module>`, `.bmad-core`, …). */
export const BundleInfo = z.object({
  /** the bundle's `name` (its folder name when bundle.yaml is unusable), or the module's folder name */
  name: z.string(),
  source: AgentSource,
  /** `bundle` or `standalone` from bundle.yaml; `module` for an installed module */
  type: z.enum(["bundle", "standalone", "module"]).optional(),
  /** the folder relative to BMAD_ROOT */
  path: z.string(),
  status: z.enum(["ok", "invalid"]),
  version: z.string().optional(),
  description: z.string().optional(),
  /** ids of the agents served from this source */
  agents: z.array(z.string()),
  warnings: z.array(RegistryWarning),
});
export type BundleInfo = z.infer<typeof BundleInfo>;

export const ListBundlesRequest = z.object({});
export type ListBundlesRequest = z.infer<typeof ListBundlesRequest>;

export const ListBundlesReply = z.union([
  z.object({
    success: z.literal(true),
    bundles: z.array(BundleInfo),
    /** warnings that belong to no single source (no BMAD install found, a count cap) */
    warnings: z.array(RegistryWarning),
  }),
  ErrorReply,
]);
export type ListBundlesReply = z.infer<typeof ListBundlesReply>;

/** Names allowed for caller-supplied `{variables}` in an activation request. */
const variableName = z.string().regex(/^[A-Za-z_][\w-]{0,63}$/);

export const ActivationRequest = z.object({
  agent_id: z.string().min(1).max(256),
  /** what the user asked for; shown to the model as the reason for the activation */
  user_context: z.string().max(20_000).optional(),
  /** values for `{name}` variables (e.g. user_name); replaced in data and text, unknown names are kept */
  variables: z
    .record(variableName, z.string().max(4096))
    .refine((value) => Object.keys(value).length <= 64, "at most 64 variables")
    .optional(),
});
export type ActivationRequest = z.infer<typeof ActivationRequest>;

/** The structured half of an activation document (docs/design.md "Activation documents"): who to become, how to start, what can be done. */
export const ActivationData = z.object({
  type: z.literal("agent"),
  id: z.string(),
  /** the agent's short name: the file stem of a module agent, the id of a bundle agent */
  name: z.string(),
  /** the module or bundle the agent belongs to */
  module: z.string(),
  source: AgentSource,
  activation: z.object({
    /** start-up instructions in order, with their `{variables}` as written (unless the request gave values) */
    steps: z.array(z.string()),
    /** the `{variables}` still unresolved anywhere in the document, sorted */
    variables: z.array(z.string()),
    /** menu handler instructions by handler type (`workflow`, `validate-workflow`, `exec`, `action`, …) */
    handlers: z.record(z.string(), z.string()),
    rules: z.array(z.string()),
  }),
  persona: z.object({
    name: z.string(),
    title: z.string(),
    icon: z.string(),
    role: z.string(),
    identity: z.string(),
    communicationStyle: z.string(),
    principles: z.string(),
  }),
  menu: z.array(MenuItem),
  /** prompts that `action="#id"` menu items refer to */
  prompts: z.array(z.object({ id: z.string(), content: z.string() })),
  userContext: z.string().optional(),
  /** the agent file's dialect (`skill` for a skills-era agent) */
  format: AgentFormat.optional(),
  /** the BMAD release that installed the agent, when the install says */
  release: z.string().optional(),
  /** a skills-era agent's skill: its name and folder relative to BMAD_ROOT */
  skill: z.object({ name: z.string(), path: z.string() }).optional(),
  /**
   * A skills-era agent's merged customization, as written: `persistent_facts` (literal facts and `file:`
   * globs under the project, which the tool side loads), and the steps to run before and after greeting.
   * These are also folded into `activation.steps`.
   */
  customization: z
    .object({
      persistentFacts: z.array(z.string()),
      activationStepsPrepend: z.array(z.string()),
      activationStepsAppend: z.array(z.string()),
    })
    .optional(),
});
export type ActivationData = z.infer<typeof ActivationData>;

export const ActivationReply = z.union([
  z.object({ success: z.literal(true), data: ActivationData, text: z.string() }),
  ErrorReply,
]);
export type ActivationReply = z.infer<typeof ActivationReply>;

export const SkillRequest = z.object({
  /** the skill's name, as BMAD gives it (`bmad-prd`): never a path */
  name: z.string().regex(skillNamePattern, "a skill name such as bmad-prd (letters, digits, '.', '_', '-')"),
  user_context: ActivationRequest.shape.user_context,
});
export type SkillRequest = z.infer<typeof SkillRequest>;

/**
 * The structured half of a skill's activation document (docs/design.md "Activation documents"), for a model
 * outside this system that works in the project folder with its own file tools: every path is relative to
 * the project folder.
 */
export const SkillActivationData = z.object({
  type: z.literal("skill"),
  name: z.string(),
  description: z.string(),
  module: z.string(),
  /** the skill's folder (`.claude/skills/bmad-prd`); `{skill-root}` in the text is replaced by it */
  path: z.string(),
  /** `agent` or `workflow` when its customization has that table, else `skill` */
  kind: z.enum(["agent", "workflow", "skill"]),
  /** the merged `[agent]` or `[workflow]` table (the whole merge for a plain skill): customize.toml → team → user */
  customization: z.record(z.string(), z.unknown()),
  /** the skill's other files, relative to the project folder, at most `skillFileLimits.maxFiles` */
  files: z.array(z.string()),
  filesTruncated: z.boolean(),
  /** the `{variables}` left in the text for the model (config values it loads as the instructions say, run-time names), sorted */
  variables: z.array(z.string()),
  /** the BMAD release that installed the skill, when the install says */
  release: z.string().optional(),
  /** layers or files skipped, and why */
  notes: z.array(z.string()),
  userContext: z.string().optional(),
});
export type SkillActivationData = z.infer<typeof SkillActivationData>;

export const SkillReply = z.union([z.object({ success: z.literal(true), data: SkillActivationData, text: z.string() }), ErrorReply]);
export type SkillReply = z.infer<typeof SkillReply>;

/**
 * Published on `registry.changed` when a re-scan changed what the registry serves. Every replica publishes its
 * own events, so the same change may arrive once per replica; consumers should treat it as "re-read".
 */
export const RegistryChanged = z.object({
  /** the Services-framework id of the registry instance that saw the change (each replica watches and publishes) */
  instance: z.string(),
  /** per instance, increases by one with every change; a consumer that sees a gap missed an event */
  revision: z.number().int().nonnegative(),
  changedAt: z.string(),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  updated: z.array(z.string()),
  /** names of bundles or modules whose status or warnings changed */
  bundles: z.array(z.string()),
});
export type RegistryChanged = z.infer<typeof RegistryChanged>;
