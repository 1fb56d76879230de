import { AppError } from "@agent-orchestrator/shared/runtime";
import type { ErrorBody, RunCommandResult } from "@agent-orchestrator/shared/wire";
import { commandLimitMessage, type CommandRun } from "../commands/index.js";
import { fitStreams } from "./fit-streams.js";
import { authorOf, type ToolHandler } from "./tool-handler.js";

/** Room for the result's keys besides the two streams. */
const envelopeBytes = 256;

/** A command stopped at a limit that makes what it wrote suspect: nothing of it is kept (withWorkingTree discards). */
class NotKept extends Error {
  constructor(readonly run: CommandRun) {
    super("the command went past its disk or process limit");
  }
}

/**
 * `run_command` → `{success, exit_code, stdout, stderr, truncated, duration_ms}` (docs/commands.md). The command runs in
 * the chat's working tree of the project's repository (`withWorkingTree`, docs/repositories.md), and what it changed
 * there is stored before the reply, whatever its exit status, so the next command on any replica sees it; except
 * when it was stopped at its disk or process limit, when nothing it changed is kept. `success` is exit status 0; a
 * non-zero exit is COMMAND_FAILED, a command stopped at its time limit COMMAND_TIMEOUT, one past another limit
 * COMMAND_LIMIT_EXCEEDED naming it, each with the output.
 */
export const runCommandTool: ToolHandler<"run_command"> = async (args, context, deps, call) => {
  const { commands, trees } = deps;
  if (!commands) {
    throw new AppError("COMMANDS_DISABLED", "Commands are turned off on this server. Do this step with the file tools where you can, and tell the user which command could not be run.");
  }
  const chat = { project: context.project_id, session: context.session_id, branch: context.branch };
  if (!trees || !(await trees.view(chat))) {
    throw new AppError(
      "REPOSITORY_REQUIRED",
      "This project has no git repository, and commands run only in a repository's working tree. Tell the user: the project's owner can attach one.",
    );
  }
  let run: CommandRun;
  let kept = true;
  try {
    run = await trees.withWorkingTree(
      chat,
      async (place, commits) => {
        const finished = await commands.run({
          place,
          command: args.command,
          timeoutMs: args.timeout_ms,
          network: context.network === true,
          // the member whose turn it is, as author and committer; the commit-msg hook in .git adds the trailers
          gitEnvironment: commits.environment,
          chat: context.session_id,
          user: context.user,
        });
        if (finished.limits.includes("disk") || finished.limits.includes("processes")) throw new NotKept(finished);
        return finished;
      },
      authorOf(context, call),
      { displayName: context.author_name },
    );
  } catch (error) {
    if (!(error instanceof NotKept)) throw error;
    run = error.run;
    kept = false;
  }
  const output = fitStreams(run.stdout, run.stderr, deps.replyBudget() - envelopeBytes);
  const shown = {
    exit_code: run.exitCode,
    ...output,
    truncated: run.truncated || output.stdout.length < run.stdout.length || output.stderr.length < run.stderr.length,
    duration_ms: run.durationMs,
  };
  const error = failureOf(run, kept);
  return error ? ({ success: false, error, ...shown } satisfies RunCommandResult) : ({ success: true, ...shown } satisfies RunCommandResult);
};

/** Why a command did not succeed, or undefined when it did: the first limit it went past, else its exit status. */
function failureOf(run: CommandRun, kept: boolean): ErrorBody | undefined {
  const [first] = run.limits;
  if (first !== undefined) {
    return {
      code: first === "time" ? "COMMAND_TIMEOUT" : "COMMAND_LIMIT_EXCEEDED",
      message: `${commandLimitMessage(run.limits, run.bounds)}${kept ? "" : "; nothing it changed was kept"}`,
    };
  }
  if (run.exitCode !== 0) return { code: "COMMAND_FAILED", message: `The command exited with code ${run.exitCode}; its output says why` };
  return undefined;
}
