import { isOutputVariable, mapOutputVariables } from "@agent-orchestrator/shared";

/**
 * The folders BMAD's output variables name, as host paths inside the project (docs/projects.md "Paths"), by the
 * shared `mapOutputVariables`: `planning_artifacts: "{project-root}/_bmad-output/planning-artifacts"` →
 * `<project>/_bmad-output/planning-artifacts`, so what one agent saves is where the next agent's workflow looks.
 * `output_folder` is always present (`_bmad-output` when the config does not say).
 */
export function projectOutputFolders(project: string, variables: Readonly<Record<string, string>>): Record<string, string> {
  const mapped = mapOutputVariables({ output_folder: "", ...variables }, project);
  return Object.fromEntries(Object.entries(mapped).filter(([name]) => isOutputVariable(name)));
}
