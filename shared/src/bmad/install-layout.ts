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

/**
 * Whether a project path (`_bmad/bmm/config.yaml`, `.claude/skills/x`) lies in BMAD's own places at the project's
 * top: a BMAD tree's or a tool folder's name. Those are the install's, read-only and shared by every project,
 * never a project's own file, whether or not the install has them (docs/projects.md "Paths").
 */
export function isInstallPlace(projectPath: string): boolean {
  const first = projectPath.split("/")[0] ?? "";
  return isInstallTreeName(first) || isSkillHostName(first);
}

/** The folder under a skill host that holds the skills. */
export const skillsFolderName = "skills";

/** A skill folder's instructions file. */
export const skillFileName = "SKILL.md";

/**
 * The variables that say where BMAD writes its outputs or keeps the project's knowledge; they resolve to the paths
 * BMAD names inside the project (docs/design.md "Variables").
 */
export function isOutputVariable(name: string): boolean {
  return name === "output_folder" || name === "project_knowledge" || name.endsWith("_artifacts");
}

/**
 * Resolves the output variables of a BMAD config to the paths BMAD itself names inside the project, so the brief
 * one chat writes is the file the next chat's workflow discovers: `output_folder: _bmad-output` →
 * `{project-root}/_bmad-output`, `planning_artifacts: {project-root}/_bmad-output/planning-artifacts` → the same,
 * 4.x's `docs` → `{project-root}/docs`. An `{output_folder}` left unexpanded by an older installer is read as the
 * output folder, and a missing or unexpanded output folder is `_bmad-output`. A value BMAD could not mean as a
 * place of the project's own files (an absolute host path, one leaving the project with `..`, or one inside a
 * dot folder or an installed BMAD tree, which are read-only or protected) is kept inside the project, under the
 * output folder by its last folder name (`/srv/elsewhere/tests` → `{project-root}/_bmad-output/tests`). Other
 * variables are returned as they are. `projectRoot` is what the paths start with (the tool side may pass a real
 * folder).
 */
export function mapOutputVariables(variables: Readonly<Record<string, string>>, projectRoot = "{project-root}"): Record<string, string> {
  // installers before 6.11 may leave output_folder out, or unexpanded as "{output_folder}"
  const written = variables["output_folder"] ?? "";
  const outputFolder = insideProject(written) ?? defaultOutputFolder;
  const mapped: Record<string, string> = { ...variables };
  const place = (relative: string) => (relative === "" ? projectRoot : `${projectRoot}/${relative}`);
  for (const [name, value] of Object.entries(variables)) {
    if (!isOutputVariable(name)) continue;
    if (name === "output_folder") {
      mapped[name] = place(outputFolder);
      continue;
    }
    const expanded = value.trim().replace(/\{output_folder\}/g, outputFolder);
    mapped[name] = place(insideProject(expanded) ?? underOutputFolder(expanded, written.trim(), outputFolder) ?? keptInside(expanded, outputFolder));
  }
  return mapped;
}

/** A value under the output folder as written (an absolute host path, say) keeps its place under the project's output folder. */
function underOutputFolder(value: string, written: string, outputFolder: string): string | undefined {
  const folder = written.replace(/\/+$/, "");
  if (folder === "" || folder.includes("{") || !value.startsWith(`${folder}/`)) return undefined;
  const rest = insideProject(value.slice(folder.length + 1));
  return rest === undefined ? undefined : `${outputFolder}/${rest}`;
}

/** Anything else BMAD names keeps its last folder name, under the output folder. */
function keptInside(value: string, outputFolder: string): string {
  const lastName = value.split(/[\\/]/).filter((segment) => segment !== "" && segment !== "." && segment !== "..").pop() ?? "";
  return lastName === "" || lastName.includes("{") || lastName.startsWith(".") ? outputFolder : `${outputFolder}/${lastName}`;
}

/** Where BMAD writes when its config does not say. */
const defaultOutputFolder = "_bmad-output";

/**
 * `{project-root}/a/b/`, `./a/b` or `a/b` → `a/b`; undefined for what is no place of the project's own files: empty,
 * the project root itself, an absolute host path, `..`, a variable left unexpanded, a dot folder or an installed
 * BMAD tree.
 */
function insideProject(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed.startsWith("/") || /^[A-Za-z]:[\\/]/.test(trimmed)) return undefined;
  const relative = trimmed
    .replace(/^\{project[-_]root\}/, "")
    .replace(/^\.\//, "")
    .replace(/^\/+|\/+$/g, "");
  const segments = relative.split("/");
  const first = segments[0] ?? "";
  if (relative === "" || relative.includes("{") || segments.some((segment) => segment === ".." || segment === "." || segment === "")) return undefined;
  return first.startsWith(".") || isInstallTreeName(first) ? undefined : relative;
}
