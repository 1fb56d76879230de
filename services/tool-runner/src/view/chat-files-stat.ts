import type { ChatFilesStatReply } from "@agent-orchestrator/shared/wire";
import { chatTreeOf, type WorkingTrees } from "../repository/index.js";
import { checkedSpacePath } from "../store/space-path.js";
import { branchFileListing, hiddenFromView, viewedFile } from "./view-listing.js";

/**
 * The files a chat message attaches, in a project with a repository (docs/repositories.md "Attachments in a chat"):
 * each looked up in the chat's working tree as its tools see it at `{project-root}` (its branch's stored state,
 * else the branch's or the default branch's last commit, as for a chat that has not changed a file yet), with the
 * view's rules (no link, protected name or install place). `files: null` where the project has no repository.
 */
export async function statChatFiles(trees: Pick<WorkingTrees, "view">, request: { project_id: string; session_id: string; branch?: string | undefined; paths: string[] }): Promise<ChatFilesStatReply> {
  const view = await trees.view(chatTreeOf(request));
  if (!view) return { success: true, files: null };
  // a protected name or an install place is a file the view never has (null), as for a missing one; a path out of the tree is refused
  const paths = request.paths.map((path) => (hiddenFromView(path) ? path : checkedSpacePath(path)));
  const files = await Promise.all(
    paths.map(async (path) => {
      const file = await viewedFile(view.repository.reader, view.state.files, path);
      return file ? branchFileListing(file) : null;
    }),
  );
  return { success: true, files };
}
