import type { ToolContext } from "@agent-orchestrator/shared/wire";
import { changedPaths, chatTreeOf, type TreeView, type WorkingTrees } from "../repository/index.js";
import type { ScriptRun, ScriptRunner } from "../scripts/index.js";
import { authorOf, type ToolCallInfo } from "./tool-handler.js";

/** A run stopped at a limit or its time: nothing it changed in the working tree is kept (withWorkingTree discards). */
class NotKept extends Error {
  constructor(readonly run: ScriptRun) {
    super("the script went past a limit");
  }
}

/**
 * `run_script` in a project with a git repository (docs/repositories.md "Scripts in the working tree"): the script runs
 * in the chat's working tree, `.git` and `git` there (`bmad-retrospective`'s `git_evidence.py` reads the commits),
 * through withWorkingTree like run_command, so what it changed is durable before the answer and its commits name the
 * member; its files written and removed in the tree are told as `{project-root}/…`.
 */
export async function runScriptInTree(
  runner: ScriptRunner,
  trees: WorkingTrees,
  before: TreeView,
  call: { args: { command: string }; context: ToolContext; info: ToolCallInfo },
): Promise<ScriptRun> {
  const { context, info } = call;
  const chat = chatTreeOf(context);
  let run: ScriptRun;
  try {
    run = await trees.withWorkingTree(
      chat,
      async (place, commits) => {
        const finished = await runner.run({ ...context, tool_call_id: info.call_id }, call.args.command, { place, gitEnvironment: commits.environment });
        if (finished.timedOut || finished.limit !== undefined) throw new NotKept(finished);
        return finished;
      },
      authorOf(context, info),
      { displayName: context.author_name },
    );
  } catch (error) {
    if (error instanceof NotKept) return error.run;
    throw error;
  }
  const after = await trees.view(chat);
  const changed = after ? await changedPaths(after.repository, before.state.files, after.state.files) : [];
  const written = await Promise.all(
    changed
      .filter((file) => file.change !== "deleted")
      .map(async (file) => ({ path: `{project-root}/${file.path}`, size: after ? await after.repository.reader.size(file.id).catch(() => 0) : 0, created: file.change === "added" })),
  );
  const removed = changed.filter((file) => file.change === "deleted").map((file) => `{project-root}/${file.path}`);
  return { ...run, filesWritten: [...written, ...run.filesWritten], filesRemoved: [...removed, ...run.filesRemoved] };
}
