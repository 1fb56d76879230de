import { AppError } from "@agent-orchestrator/shared/runtime";
import { branchRef, type BranchCommitsReply, type BranchCommitsRequest, type ChatBranchReply, type ChatChangesReply, type ChatDiscardRequest, type ChatTreeRequest } from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import { chatChanges } from "./chat-changes.js";
import { commitLog } from "./commit-log.js";
import type { Repositories } from "./repositories.js";
import { branchOf, type ChatTree, type WorkingTrees } from "./working-trees.js";

/**
 * The gateway's requests on a repository's branches and a chat's work (docs/repositories.md "A chat's work"):
 * `project.repository.commits`, `.branch`, `.changes`, `.discard`. The gateway has checked the caller's role and,
 * for a chat, that it is the project's and which branch it was started on.
 */
export class BranchRequests {
  constructor(
    private readonly repositories: Repositories,
    private readonly trees: WorkingTrees,
  ) {}

  /** A page of a branch's commits, newest first. */
  async commits(request: z.infer<typeof BranchCommitsRequest>): Promise<BranchCommitsReply> {
    const repository = await this.repositories.attached(request.project_id);
    if (!repository) throw new AppError("NOT_FOUND", "The project has no repository");
    const name = branchRef(request.branch);
    const refs = (await repository.bucket.refs(repository.project, repository.record.generation)).value?.refs ?? [];
    const head = refs.find((ref) => ref.name === name);
    if (!head) throw new AppError("NOT_FOUND", `The repository has no branch ${request.branch}`);
    const page = await commitLog(repository.local, { tip: head.id, limit: request.limit, skip: request.skip });
    return { success: true, branch: request.branch, head: head.id, commits: page.commits, more: page.more };
  }

  /** The branch the chat works on, or null when its project has no repository. */
  async branch(request: z.infer<typeof ChatTreeRequest>): Promise<ChatBranchReply> {
    const repository = await this.repositories.attached(request.project_id);
    return { success: true, branch: repository ? branchOf(chatTree(request)) : null };
  }

  /** The chat's work since it started; null when the project has no repository. */
  async changes(request: z.infer<typeof ChatTreeRequest>): Promise<ChatChangesReply> {
    const view = await this.trees.view(chatTree(request));
    return { success: true, changes: view ? await chatChanges(view, { path: request.path }) : null };
  }

  /** Discards the chat's uncommitted changes, then shows its work. */
  async discard(request: z.infer<typeof ChatDiscardRequest>): Promise<ChatChangesReply> {
    const chat = chatTree(request);
    await this.trees.discard(chat, { user: request.user });
    const view = await this.trees.view(chat);
    return { success: true, changes: view ? await chatChanges(view) : null };
  }
}

function chatTree(request: Pick<z.infer<typeof ChatTreeRequest>, "project_id" | "session_id" | "branch">): ChatTree {
  return { project: request.project_id, session: request.session_id, branch: request.branch };
}
