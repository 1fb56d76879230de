import type { ProjectStore } from "../projects/project-store.js";

/**
 * Indexes every project stored before the per-user index (docs/projects.md "Storage"), so listings, which read the
 * index only, still show them; run at every start. Idempotent and safe with several replicas starting at once: it
 * only adds keys, and a key too many (a member removed, or a project deleted, while it ran) is skipped by every
 * reader. It also indexes what an orchestrator of an older version made during a rolling upgrade, once a replica
 * of this version starts after the last older one stopped. It reads every project, so it can go (with
 * ProjectStore.all and indexTies) in the release after every deployment has started this version once with no
 * older replica running. Returns how many projects it read.
 */
export async function indexStoredProjects(projects: ProjectStore): Promise<number> {
  const records = await projects.all();
  for (const record of records) await projects.indexTies(record);
  return records.length;
}
