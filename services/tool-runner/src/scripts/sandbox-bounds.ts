import type { WorkspaceReport } from "./workspace-channel.js";

/** The limits a run can go past, each failing that run only, with nothing it wrote kept. */
export type ScriptLimitName = "memory" | "processes" | "cpu" | "disk" | "files";

/** The bounds of every run, as a message names them. */
export interface SandboxBounds {
  memoryBytes: number;
  processes: number;
  diskBytes: number;
  timeoutMs: number;
}

const SIGXCPU = 24;

/**
 * The limit a finished run went past, from what the kernel counted (the cgroup's OOM kills and refused
 * forks), the launcher's report (a full place, too many entries, a report past its bounds) and the script's
 * signal (SIGXCPU: its CPU time). Undefined when it stayed within all of them.
 */
export function limitHit(report: WorkspaceReport, cgroup: { memory: boolean; processes: boolean } | undefined): ScriptLimitName | undefined {
  if (cgroup?.memory) return "memory";
  if (cgroup?.processes) return "processes";
  if (report.end?.diskFull) return "disk";
  if (report.end?.tooMany) return "files";
  if (report.violation !== undefined) return /entries/.test(report.violation) ? "files" : "disk";
  if (report.end?.signal === SIGXCPU) return "cpu";
  return undefined;
}

/** What the model is told about a limit. */
export function limitMessage(limit: ScriptLimitName, bounds: SandboxBounds): string {
  const mebibytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
  const what: Record<ScriptLimitName, string> = {
    memory: `its memory limit (${mebibytes(bounds.memoryBytes)} for all its processes)`,
    processes: `its process limit (${bounds.processes} processes)`,
    cpu: `its CPU time limit (${Math.ceil(bounds.timeoutMs / 1000)} s)`,
    disk: `its disk limit (${mebibytes(bounds.diskBytes)} written)`,
    files: "its limit on files and folders it may leave",
  };
  return `The script went past ${what[limit]} and was stopped; nothing it wrote was kept`;
}
