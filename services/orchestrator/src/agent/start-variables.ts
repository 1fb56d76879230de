import { mapOutputVariables } from "@agent-orchestrator/shared/bmad";

/** The name BMAD's neutral defaults give a user the config does not name: a greeting treats it as no name. */
export const neutralUserName = "User";

/** Where BMAD writes when a config names no output folder: in the project, as an IDE install would. */
const defaultOutputFolder = "{project-root}/_bmad-output";

/**
 * The variables an agent starts with, whatever its release: the config values it loaded, the output variables
 * (`output_folder`, `planning_artifacts`, …) resolved to the paths BMAD names inside the project (docs/design.md
 * "Variables"), and defaults for what older installers leave out. Installers before 6.11 may write no
 * `communication_language` and no `output_folder` (docs/bmad-releases.md), and BMAD's activation steps use
 * them anyway, so a missing value gets a sensible default instead of a literal `{communication_language}`.
 */
export function startVariables(loaded: Readonly<Record<string, string>>): Record<string, string> {
  return withStartDefaults(mapOutputVariables(loaded));
}

/**
 * The defaults of `startVariables` alone, for variables whose output folders are already resolved (a loaded skill's,
 * which the tool-runner resolved with the same shared function): resolving them again would change nothing, but
 * they are the tool side's to say.
 */
export function withStartDefaults(mapped: Readonly<Record<string, string>>): Record<string, string> {
  const variables = { ...mapped };
  variables["output_folder"] = present(mapped["output_folder"]) ?? defaultOutputFolder;
  variables["user_name"] = present(mapped["user_name"]) ?? neutralUserName;
  variables["communication_language"] = present(mapped["communication_language"]) ?? "English";
  variables["document_output_language"] = present(mapped["document_output_language"]) ?? variables["communication_language"];
  return variables;
}

/** A value that says something: not empty and not an unexpanded `{placeholder}`. */
function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed && !/^\{[^{}]*\}$/.test(trimmed) ? trimmed : undefined;
}
