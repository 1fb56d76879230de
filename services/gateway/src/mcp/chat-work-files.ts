import { ChatChangesReply, ChatFilesStatReply, subjects, type BranchFileListing } from "@agent-orchestrator/shared/wire";
import { sessionAccess } from "../access/session-access.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/** A file of a chat's working tree the chat changed, by the path its tools used (`{project-root}/…`). */
export type WorkingTreeFile = BranchFileListing;

// one stat question holds this many paths (ChatFilesStatRequest)
const maxStatPaths = 100;

/**
 * In a project with a git repository, the files a chat's work added or changed in its working tree (docs/repositories.md
 * "A chat's work"; uncommitted ones included, deleted ones not), as `{project-root}/…` with their sizes, the first 100;
 * undefined when the project has none (its stored files say what the chat wrote). The chat's owner just ran the turn.
 */
export async function chatWorkFiles(context: GatewayContext, owner: string, chat: { projectId: string; sessionId: string }): Promise<WorkingTreeFile[] | undefined> {
  // the branch the chat was started on, if any (else its own `chat/<id>`)
  const { branch } = await sessionAccess(context, chat.sessionId, owner);
  const tree = { project_id: chat.projectId, session_id: chat.sessionId, ...(branch === undefined ? {} : { branch }) };
  const { changes } = await callService(context, subjects.repository("changes"), tree, ChatChangesReply);
  if (changes === null) return undefined;
  const paths = changes.files.filter((file) => file.change !== "deleted").map((file) => file.path).slice(0, maxStatPaths);
  if (paths.length === 0) return [];
  const { files } = await callService(context, subjects.repository("stat"), { ...tree, paths }, ChatFilesStatReply);
  return (files ?? []).flatMap((file) => (file === null ? [] : [{ ...file, path: `{project-root}/${file.path}` }]));
}
