import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { BoundedOutput } from "./bounded-output.js";
import type { RunCgroup } from "./sandbox-cgroups.js";
import { launcherChannelFd } from "./sandbox-launcher.js";
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
  /** host folder the report's files are staged in */
  staging: string;
  /** bounds of the report */
  reportMaxBytes: number;
  reportMaxFrames: number;
  timeoutMs: number;
  outputMaxBytes: number;
  /** host user to start bwrap as: never root (the kernel exempts root from RLIMIT_NPROC, and its files would be root's) */
  spawnAs?: { uid: number; gid: number } | undefined;
  /** a program run first, which ends by running bwrap as the slot's user (install-binder.ts); spawnAs is then unset */
  entry?: string[] | undefined;
  /** the run's cgroup: bwrap is moved into it before it may start anything */
  cgroup?: RunCgroup | undefined;
  bwrapPath: string;
}

/** The child's descriptor bwrap reads the seccomp filter from. */
export const seccompChildFd = 4;
/** The child's first descriptor of the read-only folders. */
export const firstFolderFd = 5;

// With a cgroup, a shell holds bwrap back until the tool-runner has moved it in: nothing it forks escapes the limits.
const gate = ["/bin/sh", "-c", 'read -r _ && exec "$0" "$@"'];

/**
 * Runs bwrap with an empty environment, hands the launcher its files on fd 3 and reads its report from the
 * same socket, collects stdout and stderr (each cut to `outputMaxBytes`), and on timeout kills bwrap's process
 * group with SIGKILL: bwrap dies, and with it the sandbox's pid namespace (`--die-with-parent`), so no process
 * of the script survives.
 */
export function runSandboxProcess(options: SandboxProcessOptions): Promise<SandboxExit> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const bwrap = [...(options.entry ?? []), options.bwrapPath, ...options.args];
    const [program, ...args] = options.cgroup ? [...gate, ...bwrap] : bwrap;
    const child = spawn(program ?? options.bwrapPath, args, {
      stdio: [options.cgroup ? "pipe" : "ignore", "pipe", "pipe", "pipe", options.seccomp ? "pipe" : "ignore", ...(options.descriptors ?? [])],
      env: {},
      detached: true,
      ...(options.spawnAs ?? {}),
    });
    const stdout = new BoundedOutput(options.outputMaxBytes);
    const stderr = new BoundedOutput(options.outputMaxBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    const channel = child.stdio[launcherChannelFd] as (Readable & Writable) | null;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      killGroup(child.pid);
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    child.on("error", fail);
    if (!channel || child.pid === undefined) return;
    channel.on("error", () => undefined);
    const seccompChannel = child.stdio[seccompChildFd] as Writable | null;
    seccompChannel?.on("error", () => undefined);
    seccompChannel?.end(options.seccomp);
    const report = readWorkspaceReport(channel, { staging: options.staging, maxBytes: options.reportMaxBytes, maxFrames: options.reportMaxFrames });
    const pid = child.pid;
    const begin = async () => {
      if (options.cgroup) {
        await options.cgroup.adopt(pid);
        child.stdin?.end("go\n");
      }
      await writeWorkspaceInput(channel, options.inputs);
    };
    // a sandbox that went away before it took its inputs (bwrap refused a bind) closes the socket: its exit
    // status and stderr say why, so the broken pipe is not the failure
    begin().catch((error: unknown) => {
      if (!["EPIPE", "ECONNRESET"].includes((error as NodeJS.ErrnoException).code ?? "")) fail(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      report.then(
        (finished) => {
          if (failed) return;
          resolve({
            exitCode: timedOut ? null : (code ?? (signal ? 128 : 0)),
            timedOut,
            stdout: stdout.text(),
            stderr: stderr.text(),
            report: finished,
            durationMs: Math.round(performance.now() - started),
          });
        },
        fail,
      );
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}
