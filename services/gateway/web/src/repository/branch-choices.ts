import type { BranchChoice } from "../files/project-files-view.js";
import { repositoryApi, type RepositoryApi } from "./repository-api.js";

// where chats' own branches live (`chatBranchPrefix` of the wire's ref names; the page imports types only from there)
const chatBranchPrefix = "chat/";
// a chat's title as the picker shows it
const maxTitle = 40;

/**
 * The files view's branch picker (docs/repositories.md "The files API on a repository"): the repository's default
 * branch first, then the other branches by name, a chat's own branch (`chat/<id>`) named by the chat's title where
 * the page knows it; null when the project has no repository.
 */
export async function branchChoices(projectId: string, chatTitle: (sessionId: string) => string, api: RepositoryApi = repositoryApi): Promise<BranchChoice[] | null> {
  const repository = await api.repository(projectId);
  if (!repository) return null;
  const label = (name: string): string => {
    const title = name.startsWith(chatBranchPrefix) ? chatTitle(name.slice(chatBranchPrefix.length)) : "";
    return title ? `${title.length > maxTitle ? `${title.slice(0, maxTitle - 1)}…` : title} (${name})` : name;
  };
  const others = repository.branches
    .map((branch) => branch.name)
    .filter((name) => name !== repository.default_branch)
    .sort((a, b) => Number(a.startsWith(chatBranchPrefix)) - Number(b.startsWith(chatBranchPrefix)) || a.localeCompare(b));
  return [{ name: repository.default_branch, label: `${repository.default_branch} (default)`, default: true }, ...others.map((name) => ({ name, label: label(name), default: false }))];
}
