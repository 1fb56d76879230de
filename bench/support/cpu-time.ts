import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat times: USER_HZ, 100 on Linux. */
const ticksPerSecond = 100;

/**
 * CPU time (user + system) used so far, in milliseconds, by this process (pid undefined) or by another
 * process, read from /proc (Linux; 10 ms resolution). Summed over a window and divided by the sessions it
 * ran, it says what a session costs in CPU wherever that CPU is spent.
 */
export function cpuMs(pid?: number): number {
  if (pid === undefined) {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // fields after the command name, which is in parentheses and may contain spaces
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
}
