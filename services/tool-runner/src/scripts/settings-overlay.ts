import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import {
  centralConfigLayers,
  configUserOverlay,
  isTable,
  mergeLayers,
  parseTomlLayer,
  skillUserOverlay,
  tomlLayerText,
  withSettingsAnswers,
  type TomlTable,
} from "@agent-orchestrator/shared/bmad";
import { type SettingsLayers } from "@agent-orchestrator/shared/wire";
import type { LauncherPlace } from "./sandbox-launcher.js";
import { insideProject, type SandboxView } from "./sandbox-view.js";
import type { WorkspaceInput } from "./workspace-channel.js";

/** The channel folder of the overlay: neither the project's nor the session's, so nothing written there is kept. */
export const settingsPrefix = "settings";
/** The install's `_bmad/custom/` holds a few small TOML files; more or larger than this is not copied. */
const maxCustomFiles = 256;
const maxCustomFileBytes = 1024 * 1024;

/** The place over the install's `_bmad/custom/` and the files it starts with. */
export interface SettingsOverlay {
  place: LauncherPlace;
  inputs: WorkspaceInput[];
}

/**
 * What BMAD's own resolvers read inside a run, with the chat's settings in it (docs/settings.md "Scripts"):
 * `_bmad/custom/` becomes a writable place of the run holding the install's files there, except that
 * `config.user.toml` (the last of the four central layers `resolve_config.py` merges) carries the merged answers
 * and `<skill>.user.toml` (the last layer `resolve_customization.py` merges) the project's and the member's
 * customization over the install's. So a script reads the values the system prompt holds. None when the call
 * carries no settings, or the install has no `_bmad/custom/` folder to lay them over (no mount point can be made
 * inside a read-only tree).
 */
export async function settingsOverlay(view: SandboxView, settings: SettingsLayers | undefined): Promise<SettingsOverlay | undefined> {
  if (settings === undefined) return undefined;
  const tree = view.readOnly.find((folder) => folder.inside === path.posix.join(insideProject, "_bmad"));
  if (tree === undefined) return undefined;
  const customHost = path.join(tree.host, "custom");
  if (!(await lstat(customHost).catch(() => undefined))?.isDirectory()) return undefined;

  const files = await installCustomFiles(customHost);
  const layerOf = (name: string): TomlTable => {
    const text = files.get(name);
    const parsed = text === undefined ? undefined : parseTomlLayer(text.toString("utf8"));
    return parsed?.ok ? parsed.value : {};
  };
  const central = await Promise.all(
    centralConfigLayers.map(async (layer) => {
      const text = layer.startsWith("custom/") ? files.get(layer.slice("custom/".length)) : await readFile(path.join(tree.host, layer)).catch(() => undefined);
      const parsed = text === undefined ? undefined : parseTomlLayer(text.toString("utf8"));
      return parsed?.ok ? parsed.value : {};
    }),
  );
  const answers = withSettingsAnswers({}, settings);
  files.set("config.user.toml", Buffer.from(tomlLayerText(configUserOverlay(mergeLayers(central), layerOf("config.user.toml"), answers))));
  for (const skill of new Set([...Object.keys(settings.project.customize), ...Object.keys(settings.member.customize)])) {
    const name = `${skill}.user.toml`;
    const overlay = skillUserOverlay(files.has(name) ? layerOf(name) : undefined, settings, skill);
    if (overlay !== undefined && isTable(overlay)) files.set(name, Buffer.from(tomlLayerText(overlay)));
  }
  return {
    place: { inside: path.posix.join(tree.inside, "custom"), prefix: settingsPrefix },
    inputs: [...files].map(([name, content]) => ({ relative: `${settingsPrefix}/${name}`, size: content.byteLength, content: () => Promise.resolve(content) })),
  };
}

/** The regular files directly in the install's `_bmad/custom/` (links and folders left out), by name. */
async function installCustomFiles(folder: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const entries = (await readdir(folder, { withFileTypes: true })).filter((entry) => entry.isFile()).slice(0, maxCustomFiles);
  for (const entry of entries) {
    const host = path.join(folder, entry.name);
    const stats = await lstat(host);
    if (stats.isFile() && stats.size <= maxCustomFileBytes) files.set(entry.name, await readFile(host));
  }
  return files;
}
