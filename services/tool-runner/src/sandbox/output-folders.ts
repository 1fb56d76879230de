import path from "node:path";
import { isOutputVariable, mapOutputVariables } from "@agent-orchestrator/shared/bmad";
import { relativeInside } from "@agent-orchestrator/shared/runtime";
import type { ProjectLayout } from "./project-layout.js";

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

/**
 * Every folder of the project where BMAD saves work, project-relative (`_bmad-output`,
 * `_bmad-output/planning-artifacts`, `docs`): the output folders of every module config of the install, its
 * knowledge folders, and `_bmad-output` always. A code snapshot's folders stay writable there (docs/uploads.md).
 */
export function projectOutputPlaces(layout: Pick<ProjectLayout, "outputs" | "knowledge">, project: string): string[] {
  const places = new Set<string>(["_bmad-output"]);
  const add = (hostPath: string) => {
    const relative = relativeInside(project, hostPath);
    if (relative !== undefined && relative !== "") places.add(relative.split(path.sep).join("/"));
  };
  for (const { variables } of layout.outputs) for (const folder of Object.values(projectOutputFolders(project, variables))) add(folder);
  for (const knowledge of layout.knowledge) add(knowledge);
  return [...places];
}
