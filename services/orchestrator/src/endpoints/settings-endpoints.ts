import type { Service } from "nats";
import { addJsonEndpoint, type Logger } from "@agent-orchestrator/shared/runtime";
import {
  asAnswer,
  MemberSettingsPutRequest,
  MemberSettingsRequest,
  ProjectSettingsPutRequest,
  ProjectSettingsRequest,
  subjects,
  type ProjectRecord,
} from "@agent-orchestrator/shared/wire";
import { projectOfMember, requireOwner } from "../projects/project-access.js";
import type { ProjectStore } from "../projects/project-store.js";
import type { SettingsStore } from "../settings/settings-store.js";

export interface SettingsEndpointDeps {
  projects: ProjectStore;
  settings: SettingsStore;
  subjectPrefix: string;
}

/**
 * BMAD's settings for the gateway (docs/settings.md): a project's to any member (`agent.project.settings`), written
 * by its owner only (`agent.project.settings_put`: PROJECT_FORBIDDEN for a member, PROJECT_NOT_FOUND for anyone
 * else), and the caller's own (`agent.project.my_settings`, `…_put`), which nobody else reads or writes.
 */
export function addSettingsEndpoints(service: Service, deps: SettingsEndpointDeps, logger: Logger): void {
  const { projects, settings, subjectPrefix } = deps;
  const subject = (operation: string) => subjectPrefix + subjects.projectRequest(operation);
  const projectDefaults = (record: ProjectRecord): Record<string, string> => {
    const name = record.personal ? undefined : asAnswer(record.name);
    return name ? { project_name: name } : {};
  };
  const memberDefaults = (callerName: string | undefined): Record<string, string> => (callerName ? { user_name: callerName } : {});

  addJsonEndpoint(service, "project-settings", subject("settings"), ProjectSettingsRequest, async ({ user, project_id }) => {
    const { record } = await projectOfMember(projects, project_id, user);
    return { success: true, project_id, settings: await settings.project(project_id), defaults: projectDefaults(record) };
  }, logger);

  addJsonEndpoint(service, "project-settings-put", subject("settings_put"), ProjectSettingsPutRequest, async ({ user, project_id, settings: change }) => {
    const { record } = await projectOfMember(projects, project_id, user);
    requireOwner(record, user, "change its settings");
    return { success: true, project_id, settings: await settings.putProject(project_id, change), defaults: projectDefaults(record) };
  }, logger);

  addJsonEndpoint(service, "my-settings", subject("my_settings"), MemberSettingsRequest, async ({ user, caller_name }) => {
    return { success: true, settings: await settings.member(user), defaults: memberDefaults(caller_name) };
  }, logger);

  addJsonEndpoint(service, "my-settings-put", subject("my_settings_put"), MemberSettingsPutRequest, async ({ user, caller_name, settings: change }) => {
    return { success: true, settings: await settings.putMember(user, change), defaults: memberDefaults(caller_name) };
  }, logger);
}
