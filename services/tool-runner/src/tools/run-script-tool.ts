import { AppError } from "@agent-orchestrator/shared/runtime";
import { limitMessage } from "../scripts/sandbox-bounds.js";
import { jsonBytes } from "../reply-budget.js";
import { fitStreams } from "./fit-streams.js";
import { runScriptInTree } from "./working-tree-script.js";
import type { ToolHandler } from "./tool-handler.js";

/** Files named in one reply at most; the store's revisions record them all. */
const maxFilesListed = 200;
/** Room for the keys the budget check measures besides the two streams. */
const envelopeBytes = 128;

const spaceNames = { project: "{project-root}", session: "{session-folder}" } as const;

/**
 * `run_script` → `{success, exit_code, stdout, stderr, files_written, duration_ms}`. `success` is exit code 0;
 * a non-zero exit is a failure (SCRIPT_FAILED) that still carries the output. What the run changed in the
 * project and in the chat's scratch space is stored, as new revisions by the calling user, chat and agent,
 * before the reply. A run stopped at the time limit (SCRIPT_TIMEOUT) or past another limit
 * (SCRIPT_LIMIT_EXCEEDED) keeps nothing it wrote. A run whose changes would take the project or the chat
 * over its quota keeps none of its changes there (QUOTA_EXCEEDED with its output; the files are named in
 * `files_not_kept`); the other space keeps its own. The same holds, with the store's code, when another
 * chat made a file of a name the run used as a folder meanwhile (INVALID_PATH, NOT_A_FILE).
 */
export const runScriptTool: ToolHandler<"run_script"> = async (args, context, deps, call) => {
  const runner = deps.scripts;
  if (!runner) {
    throw new AppError(
      "SCRIPTS_DISABLED",
      "Scripts are turned off on this server. Do this step by hand as the skill's fallback says (for example, write the file the script would write with save_output), and tell the user.",
    );
  }
  // in a project with a git repository, `{project-root}` is the chat's working tree (docs/repositories.md)
  const tree = await deps.sandbox.workingTree(context);
  const run =
    tree && deps.trees
      ? await runScriptInTree(runner, deps.trees, tree, { args, context, info: call })
      : await runner.run({ ...context, tool_call_id: call.call_id }, args.command);
  if (run.timedOut) {
    throw new AppError("SCRIPT_TIMEOUT", `The script ran longer than ${Math.round(runner.timeoutMs / 1000)} s and was stopped; nothing it wrote was kept`);
  }
  const files = run.filesWritten.map((file) => file.path);
  const details = {
    exit_code: run.exitCode,
    files_written: files.slice(0, maxFilesListed),
    ...(files.length > maxFilesListed ? { files_written_truncated: true } : {}),
    ...(run.filesRemoved.length > 0 ? { files_removed: run.filesRemoved.slice(0, maxFilesListed) } : {}),
    ...(run.filesRefused.length > 0 ? { files_not_kept: run.filesRefused.slice(0, 20) } : {}),
    duration_ms: run.durationMs,
  };
  const output = fitStreams(run.stdout, run.stderr, deps.replyBudget() - envelopeBytes - jsonBytes(details));
  if (run.limit !== undefined) {
    return { success: false, error: { code: "SCRIPT_LIMIT_EXCEEDED", message: limitMessage(run.limit, runner.bounds) }, ...details, ...output };
  }
  // a quota first: it is the refusal the model can act on (write less, or rewrite existing files)
  const [refusal] = [...run.spacesRefused].sort((a, b) => Number(b.code === "QUOTA_EXCEEDED") - Number(a.code === "QUOTA_EXCEEDED"));
  if (refusal) {
    const message = run.spacesRefused
      .map((refused) => `None of the script's changes under ${spaceNames[refused.kind]} were kept: ${refused.message}`)
      .join(" ");
    return { success: false, error: { code: refusal.code, message }, ...details, ...output };
  }
  if (run.exitCode === 0) return { success: true, ...details, ...output };
  return {
    success: false,
    error: { code: "SCRIPT_FAILED", message: `The script exited with code ${run.exitCode}; its stderr says why` },
    ...details,
    ...output,
  };
};
