import { describe, expect, it } from "vitest";
import { detectSandboxCgroups, parseCgroupFile, parseCgroupMounts } from "./sandbox-cgroups.js";

describe("cgroup discovery", () => {
  it("reads a process's cgroups and the cgroup mounts of a v1 host and of a v2 host", () => {
    expect(parseCgroupFile("8:pids:/\n4:memory:/process_api/abc\n0::/\n")).toEqual(
      new Map([
        ["pids", "/"],
        ["memory", "/process_api/abc"],
        ["", "/"],
      ]),
    );
    const mounts = parseCgroupMounts(
      [
        "30 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory",
        "31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct",
        "35 25 0:30 /kubepods/pod1 /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate",
        "40 25 0:33 / /tmp rw - tmpfs tmpfs rw",
      ].join("\n"),
    );
    expect(mounts).toEqual([
      { version: "v1", controllers: ["rw", "memory"], root: "/", mountPoint: "/sys/fs/cgroup/memory" },
      { version: "v1", controllers: ["rw", "cpu", "cpuacct"], root: "/", mountPoint: "/sys/fs/cgroup/cpu,cpuacct" },
      { version: "v2", controllers: [], root: "/kubepods/pod1", mountPoint: "/sys/fs/cgroup" },
    ]);
  });

  it("finds nothing where the process cannot see any cgroup file", async () => {
    expect(await detectSandboxCgroups("/nonexistent-proc")).toBeUndefined();
  });
});
