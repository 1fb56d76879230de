import { AppError } from "@agent-orchestrator/shared/runtime";
import { branchRef, type BranchPoint } from "@agent-orchestrator/shared/wire";
import type { AttachedRepository, Repositories } from "../repository/index.js";

/** One state of a repository the files API shows: which branch and commit, and the root of its files. */
export interface ShownTree extends BranchPoint {
  repository: AttachedRepository;
  files: string;
}

/**
 * The state of `project`'s repository the files API, its archive and the project's overview show (docs/repositories.md
 * "The files API on a repository"): without a branch, the default branch's last commit (what a clone gets); a
 * branch a chat works on, its working tree, uncommitted changes included (what the chat's next turn sees); any
 * other branch, its last commit. Undefined when the project has no repository; BRANCH_NOT_FOUND for a branch it lacks.
 */
export async function shownTree(repositories: Repositories, project: string, branch: string | undefined): Promise<ShownTree | undefined> {
  const repository = await repositories.attached(project);
  if (!repository) return undefined;
  const { bucket, record, reader } = repository;
  const name = branch ?? record.default_branch;
  if (branch !== undefined) {
    const stored = await bucket.treeState(project, record.generation, branch);
    if (stored.value) return { repository, branch, commit: stored.value.head, working_tree: true, files: stored.value.files };
  }
  const ref = branchRef(name);
  const head = ref === undefined ? undefined : ((await bucket.refs(project, record.generation)).value?.refs ?? []).find((one) => one.name === ref);
  if (!head) throw new AppError("BRANCH_NOT_FOUND", `The repository has no branch ${name} (a chat's branch is made by its first change)`);
  return { repository, branch: name, commit: head.id, working_tree: false, files: await reader.commitTree(head.id) };
}
