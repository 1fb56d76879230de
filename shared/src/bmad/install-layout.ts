/**
 * Names of the folders an installed BMAD project keeps at its root, for every release the official installer
 * has shipped (docs/bmad-releases.md): `.bmad-core/` (4.x, with `.bmad-<pack>/` expansion packs), `bmad/`
 * (6.0 alphas), `_bmad/` (6.0.x onwards). Skills (6.2 onwards) live in a tool folder: `.<tool>/skills/<skill>/`.
 */
export function isInstallTreeName(name: string): boolean {
  return name === "_bmad" || name === "bmad" || /^\.bmad-[a-z0-9][\w-]*$/i.test(name);
}

/** The core module of a BMAD tree, as a path from the project root: `<tree>/core`, or `.bmad-core` itself for 4.x trees (`.bmad-<pack>` included). */
export function coreModuleFolder(tree: string): string {
  return tree.startsWith(".bmad-") ? ".bmad-core" : `${tree}/core`;
}

/** A top-level folder that may hold a `skills/` folder written by the installer (`.claude`, `.agents`, `.cursor`, …). */
export function isSkillHostName(name: string): boolean {
  return /^\.[a-z0-9][\w-]*$/i.test(name) && name !== ".git" && !isInstallTreeName(name);
}

/** The folder under a skill host that holds the skills. */
export const skillsFolderName = "skills";

/** A skill folder's instructions file. */
export const skillFileName = "SKILL.md";

/** The variables that say where BMAD writes its outputs; they are mapped into the session folder (docs/design.md "Variables"). */
export function isOutputVariable(name: string): boolean {
  return name === "output_folder" || name.endsWith("_artifacts");
}

/**
 * Maps the output variables of a BMAD config into the session folder, keeping their sub-folders:
 * `output_folder: _bmad-output` → `{session-folder}`, `planning_artifacts: {project-root}/_bmad-output/planning-artifacts`
 * → `{session-folder}/planning-artifacts`. A value outside the output folder keeps its last folder name. An
 * `{output_folder}` left unexpanded by an older installer is read as the output folder. Other variables are
 * returned as they are.
 */
export function mapOutputVariables(variables: Readonly<Record<string, string>>, sessionFolder = "{session-folder}"): Record<string, string> {
  // installers before 6.11 may leave output_folder out, or unexpanded as "{output_folder}"
  const written = projectRelative(variables["output_folder"] ?? "");
  const outputFolder = written === "" || written.includes("{") ? defaultOutputFolder : written;
  const mapped: Record<string, string> = { ...variables };
  for (const [name, value] of Object.entries(variables)) {
    if (!isOutputVariable(name)) continue;
    if (name === "output_folder") {
      mapped[name] = sessionFolder;
      continue;
    }
    const relative = projectRelative(projectRelative(value).replace(/^\{output_folder\}/, outputFolder));
    const inside = relative === outputFolder || relative.startsWith(`${outputFolder}/`);
    const rest = inside ? relative.slice(outputFolder.length).replace(/^\/+/, "") : (relative.split("/").filter(Boolean).pop() ?? "");
    mapped[name] = rest === "" ? sessionFolder : `${sessionFolder}/${rest}`;
  }
  return mapped;
}

/** Where BMAD writes when its config does not say. */
const defaultOutputFolder = "_bmad-output";

/** `{project-root}/a/b/` or `./a/b` → `a/b`; an absolute host path keeps only its segments. */
function projectRelative(value: string): string {
  return value
    .trim()
    .replace(/^\{project[-_]root\}/, "")
    .replace(/^\.\//, "")
    .replace(/^\/+|\/+$/g, "");
}
