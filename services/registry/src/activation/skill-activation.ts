import { join } from "node:path";
import {
  customizationKind,
  isTable,
  listSkillFolder,
  mergeLayers,
  resolveSkillText,
  skillFileName,
  skillOverrideLayers,
  type TomlTable,
} from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type RegistryWarning, type SkillActivationData } from "@agent-orchestrator/shared/wire";
import { variablesIn } from "./activation-document.js";
import type { DiscoveryContext } from "../discovery/discovery-context.js";
import { readInstallIndex } from "../discovery/install-index.js";
import { loadOptional } from "../discovery/load-agent.js";
import { locateSkill } from "./locate-skill.js";
import { renderSkillActivationText } from "./skill-activation-text.js";

/**
 * A skill's activation document for a model OUTSIDE this system (Claude Code, Cursor), which works in the
 * project folder with its own file tools (docs/design.md "Activation documents", docs/api.md "MCP server (`/mcp`)"). The
 * SKILL.md instructions with `{skill-root}` as the project-relative folder, `{skill-name}`, and `{workflow.x}`
 * / `{agent.x}` from the customization layers merged with BMAD's rules (customize.toml → `_bmad/custom/<name>.toml`
 * → `.user.toml`); a value naming one of the skill's files becomes its project-relative path. Config variables
 * (`{user_name}`, `{planning_artifacts}`) stay as written: BMAD's skills tell the model to load
 * `_bmad/<module>/config.yaml` itself, and their outputs belong in the project, not in a session folder. Files
 * come through the registry's parse caches, so an unchanged skill costs a stat per file.
 */
export async function buildSkillActivation(
  context: DiscoveryContext,
  name: string,
  userContext: string | undefined,
): Promise<{ data: SkillActivationData; text: string }> {
  const location = await locateSkill(context, name);
  const warnings: RegistryWarning[] = [];
  const documentPath = `${location.path}/${skillFileName}`;
  const loaded = await context.skillDocuments.load(documentPath, join(location.absolute, skillFileName), location.realPath);
  if (!loaded.ok) throw new AppError("SKILL_NOT_FOUND", `Skill ${name} cannot be read: ${documentPath} ${loaded.code === "INVALID" ? `is invalid (${loaded.reason})` : loaded.reason}`);
  if (loaded.stale) warnings.push({ code: "STALE_VERSION", message: `${documentPath}: ${loaded.stale.reason}; its last good version is used` });
  const document = loaded.value;

  const layers: TomlTable[] = [];
  const base = await loadOptional(context.tomlLayers, `${location.path}/customize.toml`, join(location.absolute, "customize.toml"), location.realPath, "PARSE_NOTE", warnings);
  if (base) layers.push(base);
  const { tree } = location;
  if (tree) {
    for (const override of skillOverrideLayers(name)) {
      const path = `${tree.folder}/${override}`;
      const layer = await loadOptional(context.tomlLayers, path, join(context.rootPath, path), tree.realPath, "PARSE_NOTE", warnings);
      if (layer) layers.push(layer);
    }
  }
  const merged = mergeLayers(layers);
  const { kind, table } = customizationKind(merged);

  // the install's manifests only name the module and release; their own problems are the agent list's to report
  const index = tree ? await readInstallIndex(context, tree.folder, tree.realPath, []) : undefined;
  const descriptor = index?.agentDescriptors.get(name)?.["module"];
  const module = [typeof descriptor === "string" ? descriptor : undefined, index?.skillModules.get(name), location.folderModule].find((value) => value !== undefined && /^[\w-]{1,128}$/.test(value)) ?? "bmm";

  const listing = await listSkillFolder(location.realPath, (entry) => entry.startsWith("."));
  const instructions = resolveSkillText(document.body, { skillRoot: location.path, skillName: name, customization: merged, variables: {}, files: new Set(listing.files) });
  const data: SkillActivationData = {
    type: "skill",
    name,
    description: document.description,
    module,
    path: location.path,
    kind,
    customization: table,
    files: listing.files.map((file) => `${location.path}/${file}`),
    filesTruncated: listing.truncated,
    variables: variablesIn([instructions]),
    ...(index?.release ? { release: index.release } : {}),
    notes: warnings.map((warning) => warning.message),
    ...(userContext ? { userContext } : {}),
  };
  return { data, text: renderSkillActivationText(data, instructions) };
}
