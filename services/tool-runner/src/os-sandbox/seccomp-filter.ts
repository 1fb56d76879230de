import { arch } from "node:process";

// No dependency: libseccomp has no maintained Node binding, and the filter is a few dozen classic BPF
// instructions that bwrap loads as they are (`--seccomp FD`, the format seccomp_export_bpf writes).

/** Why a system call is refused: BMAD's scripts never need any of these (docs/security.md "Scripts"). */
const refusedEverywhere = [
  // keyrings, debugging other processes, io_uring (a second syscall surface seccomp cannot see into)
  "keyctl", "add_key", "request_key", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
  "io_uring_setup", "io_uring_enter", "io_uring_register",
  // mounts and namespaces: the sandbox's view is set up once, by bwrap, before this filter applies
  "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
  // devices and FIFOs are never a script's output
  "mknodat",
  // the kernel and the host
  "bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
  "swapon", "swapoff", "syslog", "acct", "quotactl", "open_by_handle_at", "name_to_handle_at", "personality",
  "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
] as const;

/** Refused only on x86-64, where they still exist beside their `*at` forms. */
const refusedX86 = ["mknod", "uselib", "ioperm", "iopl", "vhangup", "lookup_dcookie"] as const;

type SyscallName = (typeof refusedEverywhere)[number] | (typeof refusedX86)[number] | "chmod" | "fchmod" | "fchmodat" | "fchmodat2" | "clone" | "clone3";

/** System-call numbers (Linux uapi: arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h). */
const numbers: Record<"x64" | "arm64", Partial<Record<SyscallName, number>>> = {
  x64: {
    keyctl: 250, add_key: 248, request_key: 249, ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, pidfd_getfd: 438,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    mount: 165, umount2: 166, pivot_root: 155, chroot: 161, unshare: 272, setns: 308, open_tree: 428, move_mount: 429, fsopen: 430,
    fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, mknodat: 259, bpf: 321, perf_event_open: 298, userfaultfd: 323,
    kexec_load: 246, kexec_file_load: 320, init_module: 175, finit_module: 313, delete_module: 176, reboot: 169, swapon: 167, swapoff: 168,
    syslog: 103, acct: 163, quotactl: 179, open_by_handle_at: 304, name_to_handle_at: 303, personality: 135, settimeofday: 164,
    clock_settime: 227, clock_adjtime: 305, adjtimex: 159,
    mknod: 133, uselib: 134, ioperm: 173, iopl: 172, vhangup: 153, lookup_dcookie: 212,
    chmod: 90, fchmod: 91, fchmodat: 268, fchmodat2: 452, clone: 56, clone3: 435,
  },
  arm64: {
    keyctl: 219, add_key: 217, request_key: 218, ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, kcmp: 272, pidfd_getfd: 438,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    mount: 40, umount2: 39, pivot_root: 41, chroot: 51, unshare: 97, setns: 268, open_tree: 428, move_mount: 429, fsopen: 430,
    fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, mknodat: 33, bpf: 280, perf_event_open: 241, userfaultfd: 282,
    kexec_load: 104, kexec_file_load: 294, init_module: 105, finit_module: 273, delete_module: 106, reboot: 142, swapon: 224, swapoff: 225,
    syslog: 116, acct: 89, quotactl: 60, open_by_handle_at: 265, name_to_handle_at: 264, personality: 92, settimeofday: 170,
    clock_settime: 112, clock_adjtime: 266, adjtimex: 171,
    fchmod: 52, fchmodat: 53, fchmodat2: 452, clone: 220, clone3: 435,
  },
};

/** AUDIT_ARCH_* of the architectures the filter knows. */
const auditArch = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;

/** Which argument holds the mode of each chmod call: a setuid or setgid bit in it is refused. */
const modeArgument: Partial<Record<SyscallName, number>> = { chmod: 1, fchmod: 1, fchmodat: 2, fchmodat2: 2 };
const setIdBits = 0o6000;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME: no namespace from inside. */
const cloneNamespaceFlags = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;
/** x32 system calls on x86-64 carry this bit; they would bypass every number below. */
const x32Bit = 0x40000000;

const EPERM = 1;
const ENOSYS = 38;
const ret = { allow: 0x7fff0000, errno: 0x00050000, killProcess: 0x80000000 } as const;
// classic BPF opcodes (linux/filter.h)
const op = { loadAbsolute: 0x20, jumpEqual: 0x15, jumpGreaterEqual: 0x35, jumpSet: 0x45, return: 0x06 } as const;
// struct seccomp_data: nr (u32) at 0, arch (u32) at 4, ip (u64) at 8, args (u64 × 6) at 16; the low half first on little-endian
const offset = { nr: 0, arch: 4, argumentLow: (index: number) => 16 + 8 * index } as const;

type Label = "allow" | "deny" | "nosys" | "kill";
interface Instruction {
  code: number;
  k: number;
  jt?: Label | number;
  jf?: Label | number;
}

/** The architecture the filter is built for here, or undefined where it has no table (then scripts run without it). */
export function seccompArchitecture(processArch: string = arch): keyof typeof numbers | undefined {
  return processArch === "x64" || processArch === "arm64" ? processArch : undefined;
}

/** The names the filter refuses on an architecture, for the start log and the docs. */
export function refusedSyscalls(architecture: keyof typeof numbers): string[] {
  return Object.keys(numbers[architecture]).filter((name) => name !== "clone" && name !== "clone3");
}

/**
 * The seccomp filter of every sandboxed script, as the bytes of a `struct sock_filter` array: the listed
 * system calls fail with EPERM, a chmod that sets a setuid or setgid bit fails with EPERM, clone with a
 * namespace flag fails with EPERM, clone3 reports ENOSYS (its flags live in memory a filter cannot read; libc
 * then falls back to clone), a foreign architecture or an x32 call kills the process.
 */
export function seccompFilter(architecture: keyof typeof numbers): Buffer {
  const table = numbers[architecture];
  const program: Instruction[] = [
    { code: op.loadAbsolute, k: offset.arch },
    { code: op.jumpEqual, k: auditArch[architecture], jt: 0, jf: "kill" },
    { code: op.loadAbsolute, k: offset.nr },
  ];
  if (architecture === "x64") program.push({ code: op.jumpGreaterEqual, k: x32Bit, jt: "kill", jf: 0 });
  for (const [name, number] of Object.entries(table) as Array<[SyscallName, number]>) {
    if (name in modeArgument || name === "clone" || name === "clone3") continue;
    program.push({ code: op.jumpEqual, k: number, jt: "deny", jf: 0 });
  }
  if (table.clone3 !== undefined) program.push({ code: op.jumpEqual, k: table.clone3, jt: "nosys", jf: 0 });
  // each argument check reloads the accumulator, so it ends in a return: it must come after the plain numbers
  const argumentChecks: Array<{ number: number | undefined; argument: number; mask: number }> = [
    ...Object.entries(modeArgument).map(([name, argument]) => ({ number: table[name as SyscallName], argument, mask: setIdBits })),
    { number: table.clone, argument: 0, mask: cloneNamespaceFlags },
  ];
  for (const check of argumentChecks) {
    if (check.number === undefined) continue;
    program.push(
      { code: op.jumpEqual, k: check.number, jt: 0, jf: 2 },
      { code: op.loadAbsolute, k: offset.argumentLow(check.argument) },
      { code: op.jumpSet, k: check.mask, jt: "deny", jf: "allow" },
    );
  }
  const labels: Record<Label, number> = { allow: program.length, deny: program.length + 1, nosys: program.length + 2, kill: program.length + 3 };
  program.push(
    { code: op.return, k: ret.allow },
    { code: op.return, k: ret.errno | EPERM },
    { code: op.return, k: ret.errno | ENOSYS },
    { code: op.return, k: ret.killProcess },
  );
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    const jump = (target: Label | number | undefined) => {
      if (typeof target !== "string") return target ?? 0;
      const distance = labels[target] - index - 1;
      // classic BPF jumps forward by at most 255 instructions
      if (distance < 0 || distance > 255) throw new Error(`seccomp filter: jump to ${target} out of range`);
      return distance;
    };
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(jump(instruction.jt), index * 8 + 2);
    bytes.writeUInt8(jump(instruction.jf), index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}
