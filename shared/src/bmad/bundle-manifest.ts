import { subjectTokenPattern } from "../wire/subjects.js";
import { firstIssue } from "../runtime/zod-issue.js";
import { parseYamlMapping } from "./yaml.js";
import { z } from "zod";
import { checkManifestPath } from "./manifest-path.js";
import type { ParseOutcome } from "./parse-outcome.js";

const token = z.string().regex(subjectTokenPattern, "must be 1-128 letters, digits, '-' or '_'");
/** YAML reads `version: 1.0` as a number and `created: 2025-10-05` as text; both are kept as text. */
const scalar = z.union([z.string(), z.number()]).transform(String);

/** One agent entry of bundle.yaml (docs/design.md "Sources"). `name`/`title` may be left to the agent file. */
export const ManifestAgent = z.object({
  id: token,
  name: z.string().optional(),
  title: z.string().optional(),
  icon: z.string().optional(),
  description: z.string().optional(),
  file: z.string().min(1),
  entry_point: z.boolean().default(false),
});
export type ManifestAgent = z.infer<typeof ManifestAgent>;

const common = {
  name: token,
  version: scalar.pipe(z.string().min(1)),
  description: z.string().default(""),
  author: z.string().optional(),
  created: scalar.optional(),
  /** folders and files of the bundle (`workflows`, `templates`, `config`), relative to the bundle */
  resources: z.record(z.string(), z.string()).optional(),
  /** files under `bmad/` the bundle needs (`core/tasks/workflow.md`) */
  core_dependencies: z.array(z.string()).optional(),
};

/**
 * bundle.yaml: `type: bundle` with an `agents` list (at least one `entry_point: true`), or
 * `type: standalone` with one `agent`. Unknown keys are dropped (and reported), never kept.
 */
export const BundleManifest = z.discriminatedUnion("type", [
  z.object({ type: z.literal("bundle"), ...common, agents: z.array(ManifestAgent).min(1) }),
  z.object({ type: z.literal("standalone"), ...common, agent: ManifestAgent }),
]);
export type BundleManifest = z.infer<typeof BundleManifest>;

/** A validated manifest with the notes its reading produced. */
export interface ReadManifest {
  manifest: BundleManifest;
  /** tolerated oddities, such as unknown keys */
  notes: string[];
}

const knownKeys = new Set(["type", "name", "version", "description", "author", "created", "resources", "core_dependencies", "agents", "agent"]);

/**
 * Parses and validates bundle.yaml, this system's own bundle format (any BMAD release's agents, docs/design.md
 * "Sources"): safe YAML, the zod schema, at least one entry point, and every path in
 * it (agent `file`s and `resources` relative to the bundle, `core_dependencies` relative to `bmad/`) checked
 * by shape; one path that leaves its folder rejects the whole bundle (docs/security.md case 85).
 */
export function parseBundleManifest(text: string): ParseOutcome<ReadManifest> {
  const parsed = parseYamlMapping(text);
  if (!parsed.ok) return { ok: false, reason: `bundle.yaml is ${parsed.reason}` };
  const result = BundleManifest.safeParse(parsed.value);
  if (!result.success) {
    return { ok: false, reason: `bundle.yaml: ${firstIssue(result.error, "(root)")}` };
  }
  const manifest = result.data;
  if (manifest.type === "bundle" && !manifest.agents.some((agent) => agent.entry_point)) {
    return { ok: false, reason: "bundle.yaml: no agent has entry_point: true" };
  }
  const escape = findEscapingPath(manifest);
  if (escape) return { ok: false, code: "PATH_REJECTED", reason: `bundle.yaml: ${escape}` };
  const notes = Object.keys(parsed.value)
    .filter((key) => !knownKeys.has(key))
    .map((key) => `bundle.yaml: unknown key "${key}" ignored`);
  return { ok: true, value: { manifest: normaliseFiles(manifest), notes } };
}

function findEscapingPath(manifest: BundleManifest): string | undefined {
  const agents = manifest.type === "bundle" ? manifest.agents : [manifest.agent];
  const paths: [where: string, value: string][] = [
    ...agents.map((agent): [string, string] => [`agent ${agent.id} file`, agent.file]),
    ...Object.entries(manifest.resources ?? {}).map(([key, value]): [string, string] => [`resources.${key}`, value]),
    ...(manifest.core_dependencies ?? []).map((value, index): [string, string] => [`core_dependencies[${index}]`, value]),
  ];
  for (const [where, value] of paths) {
    const check = checkManifestPath(value);
    if (!check.ok) return `${where} "${value.slice(0, 200)}" ${check.reason}`;
  }
  return undefined;
}

/** Agent files as normalised relative paths, so the cache and the reported paths have one spelling each. */
function normaliseFiles(manifest: BundleManifest): BundleManifest {
  const normalise = (agent: ManifestAgent): ManifestAgent => {
    const check = checkManifestPath(agent.file);
    return check.ok ? { ...agent, file: check.path } : agent;
  };
  return manifest.type === "bundle" ? { ...manifest, agents: manifest.agents.map(normalise) } : { ...manifest, agent: normalise(manifest.agent) };
}
