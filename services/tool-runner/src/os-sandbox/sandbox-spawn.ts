import { spawn } from "node:child_process";
import type { Duplex, Writable } from "node:stream";
import { BoundedOutput } from "./bounded-output.js";
import type { RunCgroup } from "./sandbox-cgroups.js";

/** The child's descriptor of a socket to the tool-runner, when the run asks for one (run_script's launcher). */
export const channelChildFd = 3;
/** The child's descriptor bwrap reads the seccomp filter from. */
export const seccompChildFd = 4;
/** The child's first descriptor of the folders to bind. */
export const firstFolderFd = 5;

/** The child's descriptor of the `index`th data file, after `folders` folders' descriptors. */
export function dataChildFd(folders: number, index: number): number {
  return firstFolderFd + folders + index;
}

/** What `spawnSandbox` starts. */
export interface SandboxSpawnOptions {
  /** bwrap's arguments */
  args: string[];
  bwrapPath: string;
  /** a program run first, which ends by running bwrap as the slot's user (folder-binder.ts); spawnAs is then unset */
  entry?: string[] | undefined;
  /** host user to start bwrap as: never root (the kernel exempts root from RLIMIT_NPROC, and its files would be root's) */
  spawnAs?: { uid: number; gid: number } | undefined;
  /** the run's cgroup: bwrap is moved into it before it may start anything */
  cgroup?: RunCgroup | undefined;
  /** the seccomp filter, given to bwrap on the child's fd 4 */
  seccomp?: Buffer | undefined;
  /** open folders handed over as fds 5, 6, … (to bwrap, `--bind-fd 5 …`, or to the `entry` that binds them first) */
  descriptors?: number[] | undefined;
  /** a socket on the child's fd 3 */
  channel?: boolean | undefined;
  /** small files handed over on pipes after the folders' descriptors (for `--ro-bind-data`), in this order */
  data?: readonly string[] | undefined;
  timeoutMs: number;
  /** stdout and stderr are each kept to this many bytes (head and tail) */
  outputMaxBytes: number;
}

/** How a sandbox process ended. */
export interface SandboxEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** killed at the time limit */
  timedOut: boolean;
  /** killed by `stop` */
  stopped: boolean;
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  durationMs: number;
}

/** A running sandbox. */
export interface SandboxProcess {
  /** the socket on the child's fd 3, when asked for */
  channel: Duplex | undefined;
  /** settles once the process is in its cgroup and may start (rejects when it could not start) */
  started: Promise<void>;
  /** settles when the process has ended and its output is read (rejects when it could not be spawned) */
  ended: Promise<SandboxEnd>;
  /** kills the sandbox now */
  stop(): void;
}

// With a cgroup, a shell holds bwrap back until the tool-runner has moved it in: nothing it forks escapes the limits.
const gate = ["/bin/sh", "-c", 'read -r _ && exec "$0" "$@"'];

/**
 * Starts bwrap (after `entry`, when there is one) with an empty environment and an empty stdin, in a process group
 * of its own, collects stdout and stderr (each cut to `outputMaxBytes`), and at the time limit or on `stop` kills
 * the group with SIGKILL: bwrap dies, and with it the sandbox's pid namespace (`--die-with-parent`), so no process
 * of the sandbox survives.
 */
export function spawnSandbox(options: SandboxSpawnOptions): SandboxProcess {
  const started = performance.now();
  const bwrap = [...(options.entry ?? []), options.bwrapPath, ...options.args];
  const [program, ...args] = options.cgroup ? [...gate, ...bwrap] : bwrap;
  const child = spawn(program ?? options.bwrapPath, args, {
    stdio: [
      options.cgroup ? "pipe" : "ignore",
      "pipe",
      "pipe",
      options.channel ? "pipe" : "ignore",
      options.seccomp ? "pipe" : "ignore",
      ...(options.descriptors ?? []),
      ...(options.data ?? []).map(() => "pipe" as const),
    ],
    env: {},
    detached: true,
    ...(options.spawnAs ?? {}),
  });
  const stdout = new BoundedOutput(options.outputMaxBytes);
  const stderr = new BoundedOutput(options.outputMaxBytes);
  child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  let timedOut = false;
  let stopped = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs);
  const ended = new Promise<SandboxEnd>((resolve, reject) => {
    child.on("error", (error) => {
      clearTimeout(timer);
      killGroup(child.pid);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stopped, stdout, stderr, durationMs: Math.round(performance.now() - started) });
    });
  });
  const seccompChannel = child.stdio[seccompChildFd] as Writable | null;
  seccompChannel?.on("error", () => undefined);
  seccompChannel?.end(options.seccomp);
  (options.data ?? []).forEach((content, index) => {
    const pipe = child.stdio[dataChildFd(options.descriptors?.length ?? 0, index)] as Writable | null;
    pipe?.on("error", () => undefined);
    pipe?.end(content);
  });
  child.stdin?.on("error", () => undefined);
  const pid = child.pid;
  const begin = async () => {
    if (pid === undefined) throw new Error("the sandbox could not be spawned");
    if (options.cgroup) {
      await options.cgroup.adopt(pid);
      child.stdin?.end("go\n");
    }
  };
  // a sandbox that cannot be put in its cgroup never starts: it is killed, and its caller told
  const begun = begin().catch((error: unknown) => {
    killGroup(pid);
    throw error;
  });
  begun.catch(() => undefined);
  return {
    channel: (child.stdio[channelChildFd] as Duplex | null) ?? undefined,
    started: begun,
    ended,
    stop() {
      stopped = true;
      killGroup(pid);
    },
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}
