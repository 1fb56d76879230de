import { asAnswer, type SettingsLayers } from "@agent-orchestrator/shared/wire";
import type { SettingsReads } from "./settings-reads.js";

/** Whose turn, in which project: what the settings layers of a turn are read for. */
export interface SettingsScope {
  projectId: string;
  /** the project's name: `project_name` when its owner set none; absent for a personal project, which keeps the install's */
  projectName?: string | undefined;
  user: string;
  /** the name the gateway knows the user by: `user_name` when they set none; absent without sign-in */
  callerName?: string | undefined;
}

/**
 * The project's and the member's settings layers of one turn (docs/settings.md), read once by the orchestrator and
 * carried on the tool calls that read BMAD's config, so every replica of every service sees the same values. The
 * defaults are filled in here: `project_name` is the project's name, `user_name` the caller's name.
 */
export async function turnSettings(store: SettingsReads, scope: SettingsScope): Promise<SettingsLayers> {
  const [project, member] = await Promise.all([store.project(scope.projectId), store.member(scope.user)]);
  const projectName = scope.projectName === undefined ? undefined : asAnswer(scope.projectName);
  return {
    project: { bmad: { ...(projectName ? { project_name: projectName } : {}), ...project.bmad }, customize: project.customize ?? {} },
    member: { bmad: { ...(scope.callerName ? { user_name: scope.callerName } : {}), ...member.bmad }, customize: member.customize ?? {} },
  };
}
