import { AppError } from "@agent-orchestrator/shared";
import { limitMessage } from "../scripts/sandbox-bounds.js";
import { jsonBytes, truncateToJsonBytes } from "./reply-budget.js";
import { manifestSeedFor, type ToolHandler } from "./tool-handler.js";

/** Files named in one reply at most; the manifest records them all. */
const maxFilesListed = 200;
/** Room for the keys the budget check measures besides the two streams. */
const envelopeBytes = 128;

/**
 * `run_script` → `{success, exit_code, stdout, stderr, files_written, duration_ms}`. `success` is exit code 0;
 * a non-zero exit is a failure (SCRIPT_FAILED) that still carries the output. The run and the files it wrote
 * are recorded in the session manifest before the reply. A run stopped at the time limit (SCRIPT_TIMEOUT) or
 * past another limit (SCRIPT_LIMIT_EXCEEDED) keeps nothing it wrote. A run that leaves the session over its quota (SESSION_MAX_FILES,
 * SESSION_MAX_BYTES) is answered QUOTA_EXCEEDED with its output: the files it created are removed and
 * named in `files_removed`, the files it changed keep their new content.
 */
export const runScriptTool: ToolHandler<"run_script"> = async (args, context, deps) => {
  const runner = deps.scripts;
  if (!runner) {
    throw new AppError(
      "SCRIPTS_DISABLED",
      "Scripts are turned off on this server. Do this step by hand as the skill's fallback says (for example, write the file the script would write with save_output), and tell the user.",
    );
  }
  const seed = manifestSeedFor(context);
  // the manifest must exist before the run: the sandbox binds it read-only, so no script can create or change it
  await deps.manifests.ensure(context.session_id, seed);
  // one user's scripts wait on each other, not on everyone's (SCRIPT_CONCURRENCY_PER_USER)
  const run = await runner.run(context.session_id, args.command, context.session?.owner || context.session_id);
  const at = new Date().toISOString();
  const quota = await deps.manifests.recordScript(
    context.session_id,
    seed,
    { command: args.command, exit_code: run.exitCode, at },
    run.filesWritten,
    run.filesRemoved,
  );
  if (run.timedOut) {
    throw new AppError("SCRIPT_TIMEOUT", `The script ran longer than ${Math.round(runner.timeoutMs / 1000)} s and was stopped; nothing it wrote was kept`);
  }
  const files = run.filesWritten.map((file) => file.path).filter((file) => !quota.removed.includes(file));
  const removed = [...run.filesRemoved, ...quota.removed];
  const details = {
    exit_code: run.exitCode,
    files_written: files.slice(0, maxFilesListed),
    ...(files.length > maxFilesListed ? { files_written_truncated: true } : {}),
    ...(removed.length > 0 ? { files_removed: removed.slice(0, maxFilesListed) } : {}),
    ...(run.filesRefused.length > 0 ? { files_not_kept: run.filesRefused.slice(0, 20) } : {}),
    duration_ms: run.durationMs,
  };
  const output = fitStreams(run.stdout, run.stderr, deps.replyBudget() - envelopeBytes - jsonBytes(details));
  if (run.limit !== undefined) {
    return { success: false, error: { code: "SCRIPT_LIMIT_EXCEEDED", message: limitMessage(run.limit, runner.bounds) }, ...details, ...output };
  }
  if (quota.overQuota) {
    const { maxFiles, maxBytes } = quota.quota;
    const message = `The script's files took the session over its quota (${maxFiles} files, ${maxBytes} bytes)${
      quota.removed.length > 0 ? `; the ${quota.removed.length} file(s) it created were removed (files_removed)` : ""
    }. Rewrite existing files instead of adding new ones.`;
    return { success: false, error: { code: "QUOTA_EXCEEDED", message }, ...details, ...output };
  }
  if (run.exitCode === 0) return { success: true, ...details, ...output };
  return {
    success: false,
    error: { code: "SCRIPT_FAILED", message: `The script exited with code ${run.exitCode}; its stderr says why` },
    ...details,
    ...output,
  };
};

/**
 * stdout and stderr are already cut to SCRIPT_OUTPUT_MAX_BYTES; this keeps the whole reply under max_payload
 * too. The shorter stream stays whole when it fits half the room; the longer one gets the rest.
 */
function fitStreams(stdout: string, stderr: string, room: number): { stdout: string; stderr: string } {
  const sizes = [jsonBytes(stdout), jsonBytes(stderr)] as const;
  if (sizes[0] + sizes[1] <= room) return { stdout, stderr };
  const half = Math.floor(room / 2);
  const stdoutRoom = sizes[1] <= half ? room - sizes[1] : sizes[0] <= half ? sizes[0] : half;
  const kept = truncateToJsonBytes(stdout, stdoutRoom);
  return { stdout: kept, stderr: truncateToJsonBytes(stderr, Math.max(0, room - jsonBytes(kept))) };
}
