import type { ChatChanges, CommitView, RepositoryView } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { pageApi } from "../api/page-api.js";

export type { ChatChanges, CommitView, RepositoryView };

/** One page of a branch's commits, newest first; `more` when older ones follow. */
export interface CommitsPage {
  head: string;
  commits: CommitView[];
  more: boolean;
}

const changesPath = (sessionId: string): string => `/api/sessions/${encodeURIComponent(sessionId)}/changes`;

/**
 * The repository calls of the gateway's HTTP API (docs/repositories.md, docs/api.md), through the page's one API
 * client: the project's repository with its branches, a branch's commits, a chat's work and its discard.
 */
export class RepositoryApi {
  constructor(private readonly api: Pick<ApiClient, "json"> = pageApi) {}

  /** The project's repository, or null when it has none. */
  async repository(projectId: string): Promise<RepositoryView | null> {
    return (await this.api.json<{ repository: RepositoryView | null }>(`/api/projects/${encodeURIComponent(projectId)}/repository`)).repository;
  }

  async commits(projectId: string, branch: string, skip = 0): Promise<CommitsPage> {
    const branchPath = branch.split("/").map(encodeURIComponent).join("/");
    return this.api.json<CommitsPage>(`/api/projects/${encodeURIComponent(projectId)}/repository/branches/${branchPath}/commits?limit=50&skip=${skip}`);
  }

  /** The chat's work since it started, or null when its project has no repository. */
  async changes(sessionId: string): Promise<ChatChanges | null> {
    return (await this.api.json<{ changes: ChatChanges | null }>(changesPath(sessionId))).changes;
  }

  async discard(sessionId: string): Promise<ChatChanges> {
    return (await this.api.json<{ changes: ChatChanges }>(`${changesPath(sessionId)}/discard`, { method: "POST" })).changes;
  }
}

/** The page's one RepositoryApi. */
export const repositoryApi = new RepositoryApi();
