import type { RepositoryCloneRequest, RepositoryImportRequest, RepositoryPushReply, RepositoryPushRequest, RepositoryReply, RepositoryRequest } from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import type { StagedUploads } from "../store/staged-uploads.js";
import { pushBranch } from "./remote-push.js";
import type { Repositories } from "./repositories.js";

/**
 * The gateway's requests on `project.repository.*` (docs/repositories.md "What a user does"); the gateway has
 * checked the caller's role. A bundle arrives staged in the uploads store and is read from there into git.
 */
export class RepositoryRequests {
  constructor(
    private readonly repositories: Repositories,
    private readonly staged: StagedUploads,
  ) {}

  async import(request: z.infer<typeof RepositoryImportRequest>): Promise<RepositoryReply> {
    try {
      // straight from the store into git: a bundle of a gigabyte is never copied onto this disk whole first
      return { success: true, repository: await this.repositories.attachBundle(request.project_id, await this.staged.stream(request.staged), request.user) };
    } finally {
      await this.staged.remove(request.staged);
    }
  }

  async clone(request: z.infer<typeof RepositoryCloneRequest>): Promise<RepositoryReply> {
    const { project_id: project, user, url, branch, username, credential } = request;
    return { success: true, repository: await this.repositories.attachClone(project, { url, branch, username, credential }, user) };
  }

  async get(request: z.infer<typeof RepositoryRequest>): Promise<RepositoryReply> {
    return { success: true, repository: await this.repositories.view(request.project_id) };
  }

  /** The owner's push of a branch to the repository's remote. */
  async push(request: z.infer<typeof RepositoryPushRequest>): Promise<RepositoryPushReply> {
    return { success: true, ...(await pushBranch(this.repositories, request.project_id, request.branch, Date.now() + request.wait_ms)) };
  }

  async detach(request: z.infer<typeof RepositoryRequest>): Promise<RepositoryReply> {
    await this.repositories.detach(request.project_id);
    return { success: true, repository: null };
  }
}
