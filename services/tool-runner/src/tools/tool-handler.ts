import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { ErrorBody, FileAuthor, ToolArgs, ToolContext, RunnerToolName } from "@agent-orchestrator/shared/wire";
import type { CommandRunner } from "../commands/index.js";
import type { WorkingTrees } from "../repository/index.js";
import type { Sandbox } from "../sandbox/index.js";
import type { ScriptRunner } from "../scripts/index.js";

/** What every tool may use. */
export interface ToolDependencies {
  sandbox: Sandbox;
  /** bytes a reply may take: the connection's max_payload less the overhead */
  replyBudget: () => number;
  logger: Logger;
  /** runs BMAD's scripts; absent when scripts are off (SCRIPTS, or no working sandbox) */
  scripts?: ScriptRunner | undefined;
  /** runs the model's commands; absent when commands are off (COMMANDS, or no working sandbox) */
  commands?: CommandRunner | undefined;
  /** the chats' working trees of projects with a git repository, which scripts (and commands) run in */
  trees?: WorkingTrees | undefined;
}

/** A successful tool result; failures are thrown as AppError and turned into `{success:false}` by the caller. */
export type ToolSuccess = { success: true } & Record<string, unknown>;

/** A failure that still carries data for the model (a script's exit code and output). */
export type ToolFailureWithData = { success: false; error: ErrorBody } & Record<string, unknown>;

/** The call a tool runs for: its id is the author's tool call of what it writes. */
export interface ToolCallInfo {
  call_id: string;
}

/** The author of what a call writes: the chat's user, the chat, its agent and the tool call. */
export function authorOf(context: ToolContext, call: ToolCallInfo): FileAuthor {
  return { user: context.user, session_id: context.session_id, agent_id: context.agent_id, tool_call_id: call.call_id };
}

/** One tool: validated arguments and the call's context in, a result out. */
export type ToolHandler<N extends RunnerToolName> = (
  args: ToolArgs[N],
  context: ToolContext,
  deps: ToolDependencies,
  call: ToolCallInfo,
) => Promise<ToolSuccess | ToolFailureWithData>;
