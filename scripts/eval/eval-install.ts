/**
 * The BMAD install an eval runs against: a release from npm (installed once into the install cache,
 * test/support/bmad-install.ts) or a folder the user names, copied into a private folder whose config says
 * the eval's `user_name` and `communication_language`, so the greeting can be checked against known values and
 * the user's own install is never written.
 */
import { existsSync } from "node:fs";
import { chmod, cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { isInstallTreeName, isSkillHostName } from "@agent-orchestrator/shared/bmad";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";

export interface EvalInstall {
  /** the private copy the services read (their BMAD_ROOT) */
  root: string;
  /** what was evaluated: `bmad-method@6.12.0 (claude-code)` or the folder given */
  source: string;
  /** the project folder the release writes its documents into (`_bmad-output`; `docs` for 4.x) */
  outputFolder: string;
  /** the config files whose user_name and communication_language were set, relative to the install */
  configFiles: string[];
  remove(): Promise<void>;
}

export interface EvalConfig {
  userName: string;
  language: string;
}

/** Installs or finds the BMAD tree, copies it and writes the eval's config into the copy. */
export async function prepareEvalInstall(given: { bmadRoot?: string; release: string; tool: string }, config: EvalConfig): Promise<EvalInstall> {
  // the install's own user name does not matter (the copy gets the eval's): the cached install the tests use serves
  const original = given.bmadRoot ?? (await ensureBmadInstall({ version: given.release, tool: given.tool }));
  const source = given.bmadRoot ?? `bmad-method@${given.release} (${given.tool})`;
  if (!existsSync(original)) throw new Error(`--bmad-root ${original}: no such folder`);
  const root = await mkdtemp(join(tmpdir(), "ao-eval-install-"));
  try {
    // BMAD's scripts run in sandboxes as unprivileged users, who must reach the install (mkdtemp makes it private)
    await chmod(root, 0o755);
    // only BMAD's own places: a project folder given as --bmad-root may hold anything else (node_modules, .git)
    const entries = (await readdir(original, { withFileTypes: true })).filter(
      (entry) => entry.isDirectory() && (isInstallTreeName(entry.name) || (isSkillHostName(entry.name) && existsSync(join(original, entry.name, "skills")))),
    );
    if (entries.length === 0) throw new Error(`${original} holds no BMAD install (no _bmad/, bmad/, .bmad-core/ or .<tool>/skills/)`);
    for (const entry of entries) await cp(join(original, entry.name), join(root, entry.name), { recursive: true, verbatimSymlinks: true });
    const configFiles = await writeEvalConfig(root, config);
    return { root, source, outputFolder: await outputFolderOf(root), configFiles, remove: () => rm(root, { recursive: true, force: true }) };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** Config files of every release: module `config.yaml`s (6.x, bundles), the central `config*.toml` (6.5+). */
async function configFilesOf(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string, depth: number): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && depth < 4 && entry.name !== "skills" && entry.name !== "node_modules") await walk(path, depth + 1);
      else if (entry.isFile() && /^(config(\.user)?\.(ya?ml|toml))$/.test(entry.name)) found.push(path);
    }
  };
  for (const entry of await readdir(root, { withFileTypes: true })) if (entry.isDirectory() && isInstallTreeName(entry.name)) await walk(join(root, entry.name), 0);
  return found.sort();
}

/**
 * Sets `user_name` and `communication_language` wherever a config file names them, in the file's own syntax
 * (YAML `key: "v"`, TOML `key = "v"`), and adds the language to a YAML config that names only the user. A
 * release whose config names neither (4.x) is left as it is.
 */
async function writeEvalConfig(root: string, config: EvalConfig): Promise<string[]> {
  const written: string[] = [];
  const values: Record<string, string> = { user_name: config.userName, communication_language: config.language, document_output_language: config.language };
  for (const file of await configFilesOf(root)) {
    const text = await readFile(file, "utf8");
    let changed = text;
    for (const [key, value] of Object.entries(values)) {
      const line = new RegExp(`^(\\s*${key}\\s*)([:=])[^\\n]*$`, "gm");
      if (line.test(changed)) changed = changed.replace(line, (_whole, head: string, separator: string) => `${head}${separator} ${JSON.stringify(value)}`);
      // a YAML config that names the user but not the language (6.2's bmm/config.yaml) gets the language added
      else if (/\.ya?ml$/.test(file) && /^user_name\s*:/m.test(changed)) changed = `${changed.replace(/\n*$/, "\n")}${key}: ${JSON.stringify(value)}\n`;
    }
    if (changed !== text) {
      await writeFile(file, changed);
      written.push(relative(root, file));
    }
  }
  return written;
}

/** `output_folder` of the install's config, as a folder of the project; 4.x writes its documents into docs/. */
async function outputFolderOf(root: string): Promise<string> {
  if (existsSync(join(root, ".bmad-core"))) return "docs";
  for (const file of await configFilesOf(root)) {
    const match = /^\s*output_folder\s*[:=]\s*(.+)$/m.exec(await readFile(file, "utf8"));
    if (match?.[1]) {
      const folder = match[1].trim().replace(/^["']|["']$/g, "").replace(/^\{project-root\}\/?/, "").replace(/\/+$/, "");
      if (folder !== "" && !folder.includes("{")) return folder;
    }
  }
  return "_bmad-output";
}
