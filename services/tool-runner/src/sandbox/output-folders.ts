import path from "node:path";
import { isOutputVariable } from "@agent-orchestrator/shared";
import { relativeInside } from "./containment.js";

/** Where BMAD writes when its config does not say. */
export const defaultOutputFolder = "_bmad-output";

/**
 * The folders BMAD's output variables name, as host paths inside the project (docs/projects.md "Paths"):
 * `planning_artifacts: "{project-root}/_bmad-output/planning-artifacts"` → `<project>/_bmad-output/planning-artifacts`,
 * so what one agent saves is where the next agent's workflow looks. `output_folder` is always present
 * (`_bmad-output` when the config does not say). A value that leaves the project, or holds a variable this
 * cannot expand, is put under the output folder by its last name.
 */
export function projectOutputFolders(project: string, variables: Readonly<Record<string, string>>): Record<string, string> {
  const written = relativeValue(variables["output_folder"] ?? "");
  const outputFolder = inProject(project, written) ?? path.join(project, defaultOutputFolder);
  const folders: Record<string, string> = { output_folder: outputFolder };
  for (const [name, value] of Object.entries(variables)) {
    if (!isOutputVariable(name) || name === "output_folder") continue;
    const relative = relativeValue(value);
    const expanded = relative.startsWith("{output_folder}") ? path.join(outputFolder, `.${relative.slice("{output_folder}".length)}`) : undefined;
    folders[name] = expanded ?? inProject(project, relative) ?? path.join(outputFolder, relative.split("/").filter(Boolean).pop() ?? name.replace(/_/g, "-"));
    if (relativeInside(project, folders[name] ?? "") === undefined) folders[name] = path.join(outputFolder, name.replace(/_/g, "-"));
  }
  return folders;
}

/** `{project-root}/a/b/` or `./a/b` → `a/b`; an absolute host path stays absolute. */
function relativeValue(value: string): string {
  return value
    .trim()
    .replace(/^\{project[-_]root\}\/?/, "")
    .replace(/^\.\//, "")
    .replace(/\/+$/g, "");
}

/** The host folder of a project-relative value, when it stays inside the project and names no other variable. */
function inProject(project: string, relative: string): string | undefined {
  if (relative === "" || relative.includes("{") || path.isAbsolute(relative)) return undefined;
  const folder = path.resolve(project, relative);
  const inside = relativeInside(project, folder);
  return inside === undefined || inside === "" ? undefined : folder;
}
