/** The limits a command can go past (docs/commands.md "Limits"). */
export type CommandLimitName = "time" | "memory" | "processes" | "file size" | "disk" | "cpu";

/** The bounds every command runs within, as messages name them. */
export interface CommandBounds {
  timeoutMs: number;
  memoryBytes: number;
  processes: number;
  fileBytes: number;
  diskBytes: number;
}

/** What was seen of one run: the kernel's counters, the tool-runner's own stops and the command's exit status. */
export interface CommandEvidence {
  timedOut: boolean;
  diskExceeded: boolean;
  cgroup: { memory: boolean; processes: boolean } | undefined;
  exitCode: number | null;
}

// a process killed by a signal: the shell's and bwrap's exit status is 128 + the signal
const SIGXCPU = 24;
const SIGXFSZ = 25;

/**
 * The limits a run went past, the one that stopped it first. Memory and processes are named only where a cgroup
 * counts them (without one, a refused allocation or fork is the command's own error, which its stderr shows); a
 * file past RLIMIT_FSIZE only when the command itself died of SIGXFSZ (a program that ignores the signal, python
 * for one, sees EFBIG and says so itself).
 */
export function commandLimitsHit(evidence: CommandEvidence): CommandLimitName[] {
  const hit: CommandLimitName[] = [];
  if (evidence.cgroup?.processes) hit.push("processes");
  if (evidence.diskExceeded) hit.push("disk");
  if (evidence.cgroup?.memory) hit.push("memory");
  if (evidence.timedOut) hit.push("time");
  if (evidence.exitCode === 128 + SIGXFSZ) hit.push("file size");
  if (evidence.exitCode === 128 + SIGXCPU) hit.push("cpu");
  return hit;
}

/** What the model is told about the limits a command went past. */
export function commandLimitMessage(limits: readonly CommandLimitName[], bounds: CommandBounds): string {
  const mebibytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
  const what: Record<CommandLimitName, string> = {
    time: `its time limit (${Math.round(bounds.timeoutMs / 1000)} s) and was stopped; give a longer timeout_ms, up to the server's maximum, for a longer command`,
    memory: `its memory limit (${mebibytes(bounds.memoryBytes)} for all its processes), so a process of it was killed`,
    processes: `its process limit (${bounds.processes} processes and threads) and was stopped`,
    "file size": `its file size limit (${mebibytes(bounds.fileBytes)} per file), so the writing process was killed`,
    disk: `its disk limit (${mebibytes(bounds.diskBytes)} written) and was stopped`,
    cpu: `its CPU time limit (${Math.round(bounds.timeoutMs / 1000)} s per process), so the process was killed`,
  };
  return `The command went past ${limits.map((limit) => what[limit]).join("; and past ")}`;
}
