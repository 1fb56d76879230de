import type { MemberSettings, ProjectSettings } from "@agent-orchestrator/shared/wire";
import type { SettingsStore } from "./settings-store.js";

/** What a turn reads of the settings store. */
export type SettingsReads = Pick<SettingsStore, "project" | "member">;

/**
 * The settings store as one turn reads it: each document read once, however many parts of the turn ask for it
 * (BMAD's layers: turn-settings.ts; the approval policies: approvals/project-approvals.ts).
 */
export function readOnce(store: SettingsReads): SettingsReads {
  const projects = new Map<string, Promise<ProjectSettings>>();
  const members = new Map<string, Promise<MemberSettings>>();
  return {
    project: (projectId) => kept(projects, projectId, () => store.project(projectId)),
    member: (user) => kept(members, user, () => store.member(user)),
  };
}

function kept<T>(reads: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  const known = reads.get(key);
  if (known) return known;
  const reading = read();
  reads.set(key, reading);
  return reading;
}
