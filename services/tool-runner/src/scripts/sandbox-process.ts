import type { RunCgroup } from "../os-sandbox/sandbox-cgroups.js";
import { spawnSandbox } from "../os-sandbox/sandbox-spawn.js";
import { readWorkspaceReport, writeWorkspaceInput, type WorkspaceInput, type WorkspaceReport } from "./workspace-channel.js";

/** How a sandboxed run ended. */
export interface SandboxExit {
  /** bwrap's exit status; null on timeout */
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** what the launcher reported: the files, and how the script ended */
  report: WorkspaceReport;
  durationMs: number;
}

/** What `runSandboxProcess` starts. */
export interface SandboxProcessOptions {
  /** bwrap's arguments */
  args: string[];
  /** the session files to hand to the launcher */
  inputs: readonly WorkspaceInput[];
  /** the seccomp filter, given to bwrap on the child's fd 4 */
  seccomp?: Buffer | undefined;
  /** open folders handed over as fds 5, 6, … (to bwrap, `--ro-bind-fd 5 …`, or to the `entry` that binds them first) */
  descriptors?: number[] | undefined;
  /** small files handed over on pipes after the folders' descriptors (`--ro-bind-data`), in this order */
  data?: readonly string[] | undefined;
  /** host folder the report's files are staged in */
  staging: string;
  /** bounds of the report */
  reportMaxBytes: number;
  reportMaxFrames: number;
  timeoutMs: number;
  outputMaxBytes: number;
  /** host user to start bwrap as: never root (the kernel exempts root from RLIMIT_NPROC, and its files would be root's) */
  spawnAs?: { uid: number; gid: number } | undefined;
  /** a program run first, which ends by running bwrap as the slot's user (folder-binder.ts); spawnAs is then unset */
  entry?: string[] | undefined;
  /** the run's cgroup: bwrap is moved into it before it may start anything */
  cgroup?: RunCgroup | undefined;
  bwrapPath: string;
}

/**
 * Runs a script's sandbox (os-sandbox/sandbox-spawn.ts), hands the launcher its files on fd 3 and reads its report
 * from the same socket.
 */
export async function runSandboxProcess(options: SandboxProcessOptions): Promise<SandboxExit> {
  const run = spawnSandbox({ ...options, channel: true });
  const channel = run.channel;
  if (!channel) throw new Error("the script sandbox has no channel");
  channel.on("error", () => undefined);
  const report = readWorkspaceReport(channel, { staging: options.staging, maxBytes: options.reportMaxBytes, maxFrames: options.reportMaxFrames });
  const reported = report.then(
    (finished) => ({ finished }),
    (error: unknown) => ({ error }),
  );
  let failure: unknown;
  const begin = async () => {
    await run.started;
    await writeWorkspaceInput(channel, options.inputs);
  };
  // a sandbox that went away before it took its inputs (bwrap refused a bind) closes the socket: its exit
  // status and stderr say why, so the broken pipe is not the failure
  begin().catch((error: unknown) => {
    if (["EPIPE", "ECONNRESET"].includes((error as NodeJS.ErrnoException).code ?? "")) return;
    failure ??= error;
    run.stop();
  });
  const end = await run.ended;
  const outcome = await reported;
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  if ("error" in outcome) throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
  return {
    exitCode: end.timedOut ? null : (end.code ?? (end.signal ? 128 : 0)),
    timedOut: end.timedOut,
    stdout: end.stdout.text(),
    stderr: end.stderr.text(),
    report: outcome.finished,
    durationMs: end.durationMs,
  };
}
