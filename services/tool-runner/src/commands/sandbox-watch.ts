import type { RunCgroup } from "../os-sandbox/sandbox-cgroups.js";

/** What a watch saw over a run. */
export interface WatchReport {
  /** the most the sandbox had written at any check */
  writtenBytes: number;
  /** it went past the disk budget at a check */
  diskExceeded: boolean;
  /** it ran into its process limit at a check */
  processesExceeded: boolean;
}

/**
 * Reads a running sandbox's cgroup every `intervalMs` and calls `stop` once, the first time it has written more
 * than `diskBytes` (the kernel's I/O accounting of its processes, sandbox-cgroups.ts `writtenBytes`) or has run into
 * its process limit (a fork bomb is stopped there rather than at the time limit). A fast writer may pass the budget
 * by what it writes in one interval before it is stopped; RLIMIT_FSIZE bounds each file on top of it.
 */
export class SandboxWatch {
  private readonly timer: NodeJS.Timeout;
  private checking = false;
  private stopped = false;
  private readonly report: WatchReport = { writtenBytes: 0, diskExceeded: false, processesExceeded: false };

  constructor(
    private readonly cgroup: RunCgroup,
    private readonly diskBytes: number,
    private readonly stop: () => void,
    intervalMs = 100,
  ) {
    this.timer = setInterval(() => {
      if (this.checking || this.stopped) return;
      this.checking = true;
      this.check()
        .catch(() => undefined)
        .finally(() => (this.checking = false));
    }, intervalMs);
  }

  /** Stops watching, after a last check; what it saw. */
  async end(): Promise<WatchReport> {
    clearInterval(this.timer);
    if (!this.stopped) await this.check().catch(() => undefined);
    return { ...this.report };
  }

  private async check(): Promise<void> {
    const [written, hit] = await Promise.all([this.cgroup.writtenBytes(), this.cgroup.limitsHit()]);
    this.report.writtenBytes = Math.max(this.report.writtenBytes, written);
    this.report.diskExceeded ||= this.report.writtenBytes > this.diskBytes;
    this.report.processesExceeded ||= hit.processes;
    if ((this.report.diskExceeded || this.report.processesExceeded) && !this.stopped) {
      this.stopped = true;
      this.stop();
    }
  }
}
