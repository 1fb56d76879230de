import { AppError } from "@agent-orchestrator/shared/runtime";
import { FilesListReply, subjects, type ChatToolInput, type FileListing, type FileSpaceRef, type SignInVia, type Usage } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { publishCancel } from "../chat/run-cancel.js";
import { projectOfRun, type StartChat } from "../chat/start-chat.js";
import { turnAnswer, type TurnAnswer } from "../chat/turn-answer.js";

export interface ChatToolResult extends TurnAnswer {
  session_id: string;
  project_id: string;
  iterations: number;
  usage: Usage;
  /**
   * what this chat has written, by the virtual paths its tools used: the project's files whose latest revision
   * it wrote (`{project-root}/…`) and its own scratch files (`{session-folder}/…`)
   */
  files: FileListing[];
}

/**
 * The MCP tool `chat`: one turn on this server's loop and model, like `POST /api/chat`. `onTool` hears each
 * tool call (the MCP server turns them into progress notifications). An aborted call cancels the turn. `signIn`
 * is how the owner signed in (their display name is `user_name`'s default).
 */
export async function runChatTool(
  context: GatewayContext,
  startChat: StartChat,
  owner: string,
  signIn: SignInVia | undefined,
  input: ChatToolInput,
  signal: AbortSignal,
  onTool: (name: string) => void,
): Promise<ChatToolResult> {
  // a tool's result cannot wait for another member's decision: such a call is refused, and the model is told so
  const run = await startChat({ body: input, owner, signIn, approvalMode: "refuse" });
  const sessionId = run.first.session_id;
  const cancel = () => {
    run.close();
    publishCancel(context, sessionId, run.first.run_id);
  };
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for await (const event of run.events) {
      if (event.type === "tool_call") onTool(event.name);
      if (event.type === "error") throw new AppError(event.error.code, event.error.message);
      if (event.type === "done") {
        const projectId = await projectOfRun(context, run, owner);
        const [project, scratch] = await Promise.all([listSpace(context, { kind: "project", id: projectId }), listSpace(context, { kind: "session", id: sessionId })]);
        const files = [
          ...project.filter((file) => file.author.session_id === sessionId).map((file) => ({ ...file, path: `{project-root}/${file.path}` })),
          ...scratch.map((file) => ({ ...file, path: `{session-folder}/${file.path}` })),
        ];
        return { session_id: sessionId, project_id: projectId, ...turnAnswer(event), iterations: event.iterations, usage: event.usage, files };
      }
    }
    throw new AppError(signal.aborted ? "CANCELLED" : "SERVICE_UNAVAILABLE", "The turn ended without an answer");
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** The owner just ran a turn in this chat and project, so they may read both; a listing that fails only leaves its files out. */
async function listSpace(context: GatewayContext, space: FileSpaceRef): Promise<FileListing[]> {
  const listing = await callService(context, subjects.files("list"), { space }, FilesListReply).catch(() => undefined);
  return listing?.files ?? [];
}
