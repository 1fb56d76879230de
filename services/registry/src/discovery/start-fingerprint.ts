import { createHash } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { checkManifestPath, coreModuleFolder, criticalFiles, isInstallTreeName } from "@agent-orchestrator/shared/bmad";
import { isInside, mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { type AgentDefinition } from "@agent-orchestrator/shared/wire";
import { scanConcurrency } from "./discovery-context.js";
import { statKey } from "../cache/file-parse-cache.js";
import type { Catalog } from "./resolve-conflicts.js";

/** A file's fingerprint, or undefined when the registry does not watch it (a change would go unseen). */
type FileFingerprint = string | undefined;

/**
 * Gives every agent started by critical actions a fingerprint of its start (`startFingerprint`, docs/design.md
 * "Activation by the system"): its actions and bundle, and the mtime, size and inode of the files it reads (as
 * the parse caches key files) and their mode. An
 * edit to one changes the definition, so the scan that the watcher runs for it bumps the revision and publishes
 * `registry.changed`, and the orchestrator's kept start is never used again. An agent whose start reads a file
 * outside the watched BMAD trees, or a root the registry cannot place, gets none: its start is never kept.
 * Skill agents get none either: their start reads fact files anywhere and carries today's date.
 */
export async function withStartFingerprints(catalog: Catalog, rootPath: string): Promise<Catalog> {
  const files = new Map<string, Promise<FileFingerprint>>();
  const fingerprintOf = (relativePath: string) => {
    let known = files.get(relativePath);
    if (!known) {
      known = fileFingerprint(rootPath, relativePath);
      files.set(relativePath, known);
    }
    return known;
  };
  const records = await mapWithConcurrency([...catalog.agents.values()], scanConcurrency, async (record) => {
    const fingerprint = await startFingerprint(record.definition, fingerprintOf);
    return fingerprint === undefined ? record : { ...record, definition: { ...record.definition, startFingerprint: fingerprint } };
  });
  return { ...catalog, agents: new Map(records.map((record) => [record.definition.id, record])) };
}

async function startFingerprint(agent: AgentDefinition, fingerprintOf: (relativePath: string) => Promise<FileFingerprint>): Promise<string | undefined> {
  if (agent.format === "skill") return undefined;
  // the actions and the bundle say what the start does with the files, so they are part of it too
  const hash = createHash("sha256").update(`${agent.bundlePath}\0${agent.criticalActions.join("\0")}\n`);
  for (const virtualPath of criticalFiles(agent.criticalActions)) {
    const relativePath = startFilePath(virtualPath, agent.bundlePath);
    const fingerprint = relativePath === undefined ? undefined : await fingerprintOf(relativePath);
    if (fingerprint === undefined) return undefined;
    hash.update(`${virtualPath}\0${fingerprint}\n`);
  }
  return hash.digest("base64url").slice(0, 22);
}

/**
 * A start file's path relative to BMAD_ROOT, with its root placed as the tool-runner places it (docs/design.md
 * "Virtual paths"): `{bundle-root}` is the bundle, `{core-root}` the `core` module of the bundle's tree
 * (`.bmad-core` for 4.x trees). Undefined unless it lies in a BMAD tree, the only files the registry watches.
 */
export function startFilePath(virtualPath: string, bundlePath: string): string | undefined {
  const [, root, rest = ""] = /^\{(bundle-root|core-root|project-root)\}(.*)$/.exec(virtualPath) ?? [];
  const base = root === "project-root" ? "" : root === "bundle-root" ? bundlePath : root === "core-root" ? coreFolder(bundlePath) : undefined;
  if (base === undefined) return undefined;
  const checked = checkManifestPath(`${base}/${rest}`.replace(/^\/+/, ""));
  if (!checked.ok || !isInstallTreeName(treeOf(checked.path))) return undefined;
  return checked.path;
}

function coreFolder(bundlePath: string): string | undefined {
  const tree = treeOf(bundlePath);
  if (!isInstallTreeName(tree)) return undefined;
  return coreModuleFolder(tree);
}

const treeOf = (relativePath: string): string => relativePath.split("/")[0] ?? "";

/** `missing`, or the stat key and mode of the file it resolves to inside its BMAD tree; undefined when it resolves outside. */
async function fileFingerprint(rootPath: string, relativePath: string): Promise<FileFingerprint> {
  const tree = await realpath(join(rootPath, treeOf(relativePath))).catch(() => undefined);
  const real = await realpath(join(rootPath, relativePath)).catch(() => undefined);
  if (tree === undefined || real === undefined) return "missing";
  if (!isInside(tree, real)) return undefined;
  const stats = await stat(real).catch(() => undefined);
  // the mode too: a file made unreadable must not go on being served from a kept start
  return stats ? `${statKey(stats)}:${stats.mode}` : "missing";
}
