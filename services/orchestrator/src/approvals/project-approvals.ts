import { effectiveApprovals, type EffectiveApprovals } from "@agent-orchestrator/shared/wire";
import type { SettingsReads } from "../settings/settings-reads.js";

/** The policies a turn in `projectId` applies: the project's `approvals` over the operator's defaults (docs/approvals.md "Policies"). */
export async function projectApprovals(settings: SettingsReads | undefined, projectId: string, defaults: EffectiveApprovals): Promise<EffectiveApprovals> {
  if (!settings) return defaults;
  return effectiveApprovals(defaults, (await settings.project(projectId)).approvals);
}
