import { describe, expect, it } from "vitest";
import { refusedSyscalls, seccompArchitecture, seccompFilter } from "./seccomp-filter.js";

// What the filter does to a running script is tested in test/hostile-scripts.test.ts (cases 92, 93, 100); here its shape.
describe("seccompFilter", () => {
  it.each(["x64", "arm64"] as const)("builds a %s program bwrap can load: whole instructions, every jump forward and inside it", (architecture) => {
    const program = seccompFilter(architecture);
    expect(program.length % 8).toBe(0);
    const count = program.length / 8;
    for (let index = 0; index < count; index++) {
      const code = program.readUInt16LE(index * 8);
      if ((code & 0x07) !== 0x05) continue;
      for (const jump of [program.readUInt8(index * 8 + 2), program.readUInt8(index * 8 + 3)]) expect(index + 1 + jump).toBeLessThan(count);
    }
    // the last instruction kills: a foreign architecture never reaches the allow-list
    expect(program.readUInt32LE((count - 1) * 8 + 4)).toBe(0x80000000);
  });

  it("refuses the calls BMAD's scripts never need, and knows only the architectures it has tables for", () => {
    expect(refusedSyscalls("x64")).toEqual(expect.arrayContaining(["keyctl", "ptrace", "io_uring_setup", "mount", "unshare", "mknodat", "mknod", "bpf"]));
    expect(refusedSyscalls("arm64")).not.toContain("mknod");
    expect(seccompArchitecture("x64")).toBe("x64");
    expect(seccompArchitecture("riscv64")).toBeUndefined();
  });
});
