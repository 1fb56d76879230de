import { join } from "node:path";
import { asMapping, buildSkillAgent, cell, isTable, mergeLayers, scalarText, skillFileName, skillOverrideLayers, type CsvRow, type TomlTable } from "@agent-orchestrator/shared/bmad";
import { type RegistryWarning } from "@agent-orchestrator/shared/wire";
import type { AgentRecord, DiscoveryContext } from "./discovery-context.js";
import type { InstallIndex } from "./install-index.js";
import { loadOptional, reportOutcome } from "./load-agent.js";
import { moduleAgent } from "./module-agent.js";
import { readTextFile } from "../cache/read-text-file.js";
import { listInstalledSkills, type InstalledSkill } from "./skill-folders.js";

/** The skills-era `_bmad/` tree the skills belong to: its folder, real path and index (absent in a skills-only project). */
export interface SkillContext {
  folder: string;
  realPath?: string | undefined;
  index?: InstallIndex | undefined;
  /** agent files found in the XML trees (`_bmad/bmm/agents/analyst.md`): what launcher skills point at */
  agentFiles: ReadonlySet<string>;
}

/** Skill agents by module, with their warnings; and warnings that belong to no module. */
export interface SkillAgentScan {
  modules: Map<string, { agents: AgentRecord[]; warnings: RegistryWarning[] }>;
  warnings: RegistryWarning[];
  /** whether any tool folder has a `skills/` folder */
  found: boolean;
}

/** `bmad-skill-manifest.yaml` / agent-manifest.csv keys the registry uses for 6.3-6.4 agents. */
const metadataKeys = ["displayName", "title", "icon", "role", "identity", "communicationStyle", "principles"] as const;

/**
 * Finds the skills-era agents among the installed skills (docs/bmad-releases.md). A skill is an agent when
 * its customize.toml has an `[agent]` table, `_bmad/config.toml` lists it under `[agents.<skill>]`, its
 * `bmad-skill-manifest.yaml` says `type: agent`, agent-manifest.csv lists it as a skill, or its name says so
 * (`bmad-agent-*`, `bmad-<module>-agent-*`); but not when its customization has only a `[workflow]` table or
 * its manifest names another type, and not when it is a launcher whose SKILL.md only loads an XML agent file
 * (6.0.x tool skills, 6.2 `bmad-analyst`): that XML agent is the agent. The id is `<module>/<name>`.
 */
export async function scanSkillAgents(context: DiscoveryContext, tree: SkillContext): Promise<SkillAgentScan> {
  const warnings: RegistryWarning[] = [];
  const { skills, hosts } = await listInstalledSkills(context, warnings);
  const modules: SkillAgentScan["modules"] = new Map();
  for (const skill of skills) {
    const index = tree.index;
    const descriptor = index?.agentDescriptors.get(skill.name);
    const row = index?.agentRows.find((candidate) => cell(candidate, "name") === skill.name && !isAgentFilePath(cell(candidate, "path")));
    const provisional = moduleOf(skill.name, index, descriptor, row, undefined);
    const scan = await scanSkill(context, tree, skill, descriptor, row, provisional);
    if (!scan) continue;
    const module = scan.module;
    const entry = modules.get(module) ?? { agents: [], warnings: [] };
    modules.set(module, entry);
    entry.warnings.push(...scan.warnings);
    if (scan.record) entry.agents.push(scan.record);
  }
  return { modules, warnings, found: hosts.length > 0 };
}

async function scanSkill(
  context: DiscoveryContext,
  tree: SkillContext,
  skill: InstalledSkill,
  descriptor: TomlTable | undefined,
  row: CsvRow | undefined,
  provisionalModule: string,
): Promise<{ module: string; record?: AgentRecord; warnings: RegistryWarning[] } | undefined> {
  const { served } = skill;
  const warnings: RegistryWarning[] = [];
  const base = await context.tomlLayers.load(`${served.path}/customize.toml`, join(served.absolute, "customize.toml"), served.realPath);
  const baseMissing = !base.ok && base.code === "FILE_MISSING";
  const manifest = await loadOptional(context.yamlMappings, `${served.path}/bmad-skill-manifest.yaml`, join(served.absolute, "bmad-skill-manifest.yaml"), served.realPath, "PARSE_NOTE", warnings);
  const manifestType = scalarText(asMapping(manifest)?.["type"]);
  const baseTable = base.ok ? base.value : undefined;
  const workflowOnly = baseTable !== undefined && !isTable(baseTable["agent"]) && isTable(baseTable["workflow"]);
  const named = /^(?:[a-z0-9]+-)*?agent-./i.test(skill.name);
  const claimed = (baseTable !== undefined && isTable(baseTable["agent"])) || descriptor !== undefined || manifestType === "agent" || row !== undefined;
  const excluded = (workflowOnly && descriptor === undefined) || (manifestType !== "" && manifestType !== "agent");
  // a customize.toml that cannot be read leaves it unknown whether this is an agent: report it when the name says agent
  if (!base.ok && !baseMissing && (claimed || named)) {
    reportOutcome(base, `${served.path}/customize.toml`, "AGENT_INVALID", warnings);
    return { module: provisionalModule, warnings };
  }
  if (excluded || !(claimed || named)) return undefined;

  const module = moduleOf(skill.name, tree.index, descriptor, row, manifest);
  const filePath = `${served.path}/${skillFileName}`;
  const loaded = await context.skillDocuments.load(filePath, join(served.absolute, skillFileName), served.realPath);
  if (!reportOutcome(loaded, filePath, "AGENT_INVALID", warnings)) return { module, warnings };
  const document = loaded.value;
  if (base.ok && base.stale) reportOutcome(base, `${served.path}/customize.toml`, "AGENT_INVALID", warnings);
  if (document.launches && !(baseTable && isTable(baseTable["agent"]))) {
    if (!tree.agentFiles.has(document.launches)) {
      warnings.push({ code: "PARSE_NOTE", message: `${filePath} launches ${document.launches}, which is not an agent found in this install`, path: filePath });
    }
    return warnings.length > 0 ? { module, warnings } : undefined;
  }
  if (document.name !== skill.name) {
    warnings.push({ code: "PARSE_NOTE", message: `${filePath} names itself "${document.name}" in a folder named "${skill.name}"; the folder name is used`, path: filePath });
  }

  const layers: TomlTable[] = baseTable ? [baseTable] : [];
  if (tree.realPath) {
    for (const override of skillOverrideLayers(skill.name)) {
      const path = `${tree.folder}/${override}`;
      const layer = await loadOptional(context.tomlLayers, path, join(context.rootPath, path), tree.realPath, "AGENT_INVALID", warnings);
      if (layer) layers.push(layer);
    }
  }
  const merged = mergeLayers(layers)["agent"];
  const parsed = buildSkillAgent({
    skillPath: served.path,
    document,
    customization: isTable(merged) ? merged : undefined,
    descriptor,
    metadata: metadataOf(manifest, row),
  });
  for (const note of parsed.notes) warnings.push({ code: note.code, message: `${filePath}: ${note.message}`, path: filePath });
  warnings.push(...(await differingCopies(context, skill)));
  const record = moduleAgent(parsed, {
    id: `${module}/${agentShortName(skill.name, module)}`,
    module,
    release: tree.index?.release,
    bundlePath: served.path,
    filePath,
    skill: { name: skill.name, path: served.path },
  });
  return { module, record, warnings };
}

/** `bmad-agent-analyst` → `analyst`, `bmad-cis-agent-storyteller` → `storyteller`, `bmad-agent-bmm-pm` (module bmm) → `pm`. */
export function agentShortName(skillName: string, module: string): string {
  const short = /^(?:[a-z0-9]+-)*?agent-(.+)$/i.exec(skillName)?.[1] ?? skillName;
  return short.startsWith(`${module}-`) && short.length > module.length + 1 ? short.slice(module.length + 1) : short;
}

/** The module: `[agents.<skill>].module`, else skill-manifest.csv, else agent-manifest.csv, else the skill's own manifest, else bmm. */
function moduleOf(
  skill: string,
  index: InstallIndex | undefined,
  descriptor: TomlTable | undefined,
  row: CsvRow | undefined,
  manifest: Record<string, unknown> | undefined,
): string {
  const candidates = [
    typeof descriptor?.["module"] === "string" ? descriptor["module"] : "",
    index?.skillModules.get(skill) ?? "",
    row ? cell(row, "module") : "",
    scalarText(asMapping(manifest)?.["module"]),
  ];
  return candidates.map((value) => value.trim()).find((value) => /^[\w-]{1,128}$/.test(value)) ?? "bmm";
}

function metadataOf(manifest: Record<string, unknown> | undefined, row: CsvRow | undefined): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const key of metadataKeys) {
    const value = scalarText(asMapping(manifest)?.[key]) || (row ? cell(row, key) : "");
    if (value !== "") metadata[key] = value;
  }
  return metadata;
}

/** An agent-manifest.csv path that names an XML agent file, not a skill folder. */
export function isAgentFilePath(path: string): boolean {
  return path.endsWith(".md") && !path.endsWith(`/${skillFileName}`);
}

/** Copies of a skill in other tool folders that differ from the served one: reported, never merged. */
async function differingCopies(context: DiscoveryContext, skill: InstalledSkill): Promise<RegistryWarning[]> {
  const warnings: RegistryWarning[] = [];
  for (const copy of skill.others) {
    for (const file of [skillFileName, "customize.toml"]) {
      const [served, other] = await Promise.all([skill.served, copy].map((folder) => readTextFile(join(folder.realPath, file), context.limits.maxFileBytes)));
      const same = served?.ok && other?.ok ? served.text === other.text : served?.ok === other?.ok;
      if (!same) {
        warnings.push({ code: "PARSE_NOTE", message: `${copy.path}/${file} differs from ${skill.served.path}/${file}; the copy in ${skill.served.path} is served`, path: `${copy.path}/${file}` });
        break;
      }
    }
  }
  return warnings;
}
