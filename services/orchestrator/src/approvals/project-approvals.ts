import { effectiveApprovals, withVerifyCommands, type EffectiveApprovals, type ProjectSettings } from "@agent-orchestrator/shared/wire";

/**
 * The policies a turn in a project applies: the project's `approvals` (from its settings document, as the turn read
 * it; none without a settings store) over the operator's defaults, and its repository's verify commands allowed
 * (docs/approvals.md "Policies", docs/repositories.md "Commands the project allows").
 */
export function projectApprovals(document: ProjectSettings | undefined, defaults: EffectiveApprovals): EffectiveApprovals {
  if (!document) return defaults;
  return withVerifyCommands(effectiveApprovals(defaults, document.approvals), document.repository);
}
