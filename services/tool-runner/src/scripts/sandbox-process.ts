import { spawn } from "node:child_process";
import { BoundedOutput } from "./bounded-output.js";

/** How a sandboxed process ended. */
export interface SandboxExit {
  /** the exit status; for a process killed by a signal, 128 + its number as a shell reports it; null on timeout */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** What `runSandboxProcess` starts. */
export interface SandboxProcessOptions {
  /** bwrap's arguments */
  args: string[];
  /** open descriptors handed to bwrap as fds 3, 4, … (`--bind-fd 3 …`) */
  descriptors: number[];
  timeoutMs: number;
  outputMaxBytes: number;
  /** host user to start bwrap as, when the tool-runner is root (tests); the kernel exempts root from RLIMIT_NPROC */
  spawnAs?: { uid: number; gid: number } | undefined;
  bwrapPath: string;
}

const signalNumbers: Partial<Record<NodeJS.Signals, number>> = { SIGKILL: 9, SIGXCPU: 24, SIGXFSZ: 25, SIGSEGV: 11, SIGTERM: 15, SIGABRT: 6 };

/**
 * Runs bwrap with an empty environment and stdin, collects stdout and stderr (each cut to `outputMaxBytes`),
 * and on timeout kills its whole process group with SIGKILL: bwrap dies, and with it the sandbox's pid
 * namespace (`--unshare-pid`, `--die-with-parent`), so no process of the script survives.
 */
export function runSandboxProcess(options: SandboxProcessOptions): Promise<SandboxExit> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(options.bwrapPath, options.args, {
      stdio: ["ignore", "pipe", "pipe", ...options.descriptors],
      env: {},
      detached: true,
      ...(options.spawnAs ?? {}),
    });
    const stdout = new BoundedOutput(options.outputMaxBytes);
    const stderr = new BoundedOutput(options.outputMaxBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode: timedOut ? null : (code ?? 128 + (signal ? (signalNumbers[signal] ?? 0) : 0)),
        signal,
        timedOut,
        stdout: stdout.text(),
        stderr: stderr.text(),
        durationMs: Math.round(performance.now() - started),
      });
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
