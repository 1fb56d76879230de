import { sandboxPrograms } from "./sandbox-programs.js";

/** Kernel limits for every process of a sandbox (setrlimit through prlimit, inside the sandbox). */
export interface ProcessLimits {
  /** RLIMIT_AS: address space of each process; unset where a cgroup holds the sandbox's memory instead */
  memoryBytes?: number | undefined;
  /** RLIMIT_CPU: CPU seconds of each process */
  cpuSeconds: number;
  /**
   * RLIMIT_NPROC: processes of the sandbox's user (per sandbox when each slot has its own user; never applied to
   * root); unset where a cgroup counts the sandbox's processes instead
   */
  processes?: number | undefined;
  /** RLIMIT_FSIZE: the largest file a process may write */
  fileBytes: number;
  /** RLIMIT_NOFILE */
  openFiles: number;
}

/** A command line under its kernel limits (prlimit applies them, then runs it). */
export function limitedCommand(limits: ProcessLimits, command: readonly string[]): string[] {
  return [
    sandboxPrograms.prlimit,
    ...(limits.memoryBytes === undefined ? [] : [`--as=${limits.memoryBytes}`]),
    // a soft limit below the hard one: the process gets SIGXCPU, which tells a CPU limit from any other kill
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    ...(limits.processes === undefined ? [] : [`--nproc=${limits.processes}`]),
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
    "--",
    ...command,
  ];
}
