import type { OverviewFile } from "@agent-orchestrator/shared/bmad";
import { BranchCommitsReply, subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { branchFiles } from "./repository-files.js";

/**
 * The documents the method at a glance reads, in a project with a git repository (docs/repositories.md "The
 * project's overview, resources and archive"): the default branch's files under `_bmad-output/` and `docs/`, as the
 * files API lists them without `?branch`, each with the author and time of the branch's last commit (git keeps no
 * author per file; the commit's `Agent:` and `Chat:` trailers name the agent and the chat). Null without a repository.
 */
export async function repositoryOverviewFiles(context: GatewayContext, project: string): Promise<OverviewFile[] | null> {
  const [outputs, docs] = await Promise.all([branchFiles(context, project, { prefix: "_bmad-output" }), branchFiles(context, project, { prefix: "docs" })]);
  if (outputs === null || docs === null) return null;
  const files = [...outputs.files, ...docs.files];
  if (files.length === 0) return [];
  const { commits } = await callService(context, subjects.repository("commits"), { project_id: project, branch: outputs.branch, limit: 1, skip: 0 }, BranchCommitsReply);
  const last = commits[0];
  const author = last
    ? { user: last.author.name, ...(last.agent_id === undefined ? {} : { agent_id: last.agent_id }), ...(last.chat_id === undefined ? {} : { session_id: last.chat_id }) }
    : { user: "" };
  const updatedAt = last?.author.at ?? new Date(0).toISOString();
  return files.map((file) => ({ path: file.path, author, updated_at: updatedAt, read_only: false }));
}
