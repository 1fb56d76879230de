import type { SkippedEntry } from "@agent-orchestrator/shared/wire";

/** Skipped entries a reply names one by one; the rest are counted in one line, so a reply stays small. */
const maxNamed = 100;

/** The skipped entries of an archive as a reply lists them: the first ones by name, then one line for the rest. */
export function skippedList(skipped: readonly SkippedEntry[]): SkippedEntry[] {
  if (skipped.length <= maxNamed) return [...skipped];
  return [...skipped.slice(0, maxNamed), { path: "…", reason: `and ${skipped.length - maxNamed} more entries left out` }];
}
