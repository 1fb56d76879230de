import { asAnswer, type SettingsLayers } from "@agent-orchestrator/shared/wire";
import type { SettingsDocuments } from "./settings-store.js";

/** The names a turn's settings default to. */
export interface SettingsNames {
  /** the project's name: `project_name` when its owner set none; absent for a personal project, which keeps the install's */
  projectName?: string | undefined;
  /** the name the gateway knows the user by: `user_name` when they set none; absent without sign-in */
  callerName?: string | undefined;
}

/**
 * The project's and the member's settings layers of one turn (docs/settings.md), from the documents the orchestrator
 * read once, carried on the tool calls that read BMAD's config, so every replica of every service sees the same
 * values. The defaults are filled in here: `project_name` is the project's name, `user_name` the caller's name.
 */
export function turnSettings({ project, member }: SettingsDocuments, names: SettingsNames): SettingsLayers {
  const projectName = names.projectName === undefined ? undefined : asAnswer(names.projectName);
  return {
    project: { bmad: { ...(projectName ? { project_name: projectName } : {}), ...project.bmad }, customize: project.customize ?? {} },
    member: { bmad: { ...(names.callerName ? { user_name: names.callerName } : {}), ...member.bmad }, customize: member.customize ?? {} },
  };
}
