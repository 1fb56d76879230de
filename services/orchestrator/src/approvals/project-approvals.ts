import { effectiveApprovals, withVerifyCommands, type EffectiveApprovals } from "@agent-orchestrator/shared/wire";
import type { SettingsReads } from "../settings/settings-reads.js";

/**
 * The policies a turn in `projectId` applies: the project's `approvals` over the operator's defaults, and its
 * repository's verify commands allowed (docs/approvals.md "Policies", docs/repositories.md "Commands the project allows").
 */
export async function projectApprovals(settings: SettingsReads | undefined, projectId: string, defaults: EffectiveApprovals): Promise<EffectiveApprovals> {
  if (!settings) return defaults;
  const document = await settings.project(projectId);
  return withVerifyCommands(effectiveApprovals(defaults, document.approvals), document.repository);
}
