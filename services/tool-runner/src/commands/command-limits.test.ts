import { describe, expect, it } from "vitest";
import { commandLimitMessage, commandLimitsHit } from "./command-limits.js";
import { withoutHostPaths } from "./host-paths.js";

const mebibytes = (count: number) => count * 1024 * 1024;
const bounds = { timeoutMs: 25_000, memoryBytes: mebibytes(2048), processes: 256, fileBytes: mebibytes(1024), diskBytes: mebibytes(2048) };
const quiet = { timedOut: false, diskExceeded: false, cgroup: { memory: false, processes: false }, exitCode: 0 };

describe("the limits a command went past", () => {
  it("are named from the kernel's counters, the tool-runner's stops and the command's own death by signal", () => {
    expect(commandLimitsHit(quiet)).toEqual([]);
    expect(commandLimitsHit({ ...quiet, exitCode: null, timedOut: true, cgroup: { memory: false, processes: true } })).toEqual(["processes", "time"]);
    expect(commandLimitsHit({ ...quiet, exitCode: 153 })).toEqual(["file size"]);
    expect(commandLimitsHit({ ...quiet, exitCode: 137, cgroup: { memory: true, processes: false } })).toEqual(["memory"]);
    // without a cgroup nothing counts memory or processes: the command's own error says what failed
    expect(commandLimitsHit({ ...quiet, exitCode: 1, cgroup: undefined })).toEqual([]);
  });

  it("are told to the model with their bounds and what to do about time", () => {
    expect(commandLimitMessage(["time"], bounds)).toBe(
      "The command went past its time limit (25 s) and was stopped; give a longer timeout_ms, up to the server's maximum, for a longer command",
    );
    expect(commandLimitMessage(["processes", "time"], bounds)).toContain("its process limit (256 processes and threads) and was stopped; and past its time limit");
    expect(commandLimitMessage(["disk"], bounds)).toBe("The command went past its disk limit (2048 MiB written) and was stopped");
  });
});

describe("host paths in what bwrap or the binder print", () => {
  it("become the names the sandbox knows, the longest first", () => {
    const places = [
      { host: "/var/cache/ao/p1/checkouts/main/tree", inside: "/project" },
      { host: "/var/cache/ao/p1/checkouts/main/tree/sub", inside: "/project/sub" },
      { host: "/", inside: "/nothing" },
    ];
    expect(withoutHostPaths("bwrap: Can't bind /var/cache/ao/p1/checkouts/main/tree/sub and /var/cache/ao/p1/checkouts/main/tree", places)).toBe(
      "bwrap: Can't bind /project/sub and /project",
    );
  });
});
