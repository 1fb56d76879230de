import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";

/** The sandbox's programs: Debian's bubblewrap, util-linux's prlimit and the system python3 (all under /usr). */
export const sandboxPrograms = { bwrap: "/usr/bin/bwrap", prlimit: "/usr/bin/prlimit", python: "/usr/bin/python3" } as const;

/** Kernel limits for every process of a script (setrlimit through prlimit, inside the sandbox). */
export interface ScriptLimits {
  /** RLIMIT_AS: address space of each process */
  memoryBytes: number;
  /** RLIMIT_CPU: CPU seconds of each process */
  cpuSeconds: number;
  /** RLIMIT_NPROC: processes of the sandbox's user, against fork bombs (not enforced for a root tool-runner) */
  processes: number;
  /** RLIMIT_FSIZE: the largest file a script may write */
  fileBytes: number;
  /** RLIMIT_NOFILE */
  openFiles: number;
  /** size of the private /tmp */
  tmpBytes: number;
}

/** A folder bound from an open directory descriptor: the child's fd number and where it appears. */
export interface DescriptorBind {
  fd: number;
  inside: string;
  writable: boolean;
}

/** Everything one sandboxed run needs, in the order bwrap must mount it. */
export interface SandboxSpec {
  /** host folders bound read-only at the same place below `/sandbox/project` */
  readOnly: Array<{ host: string; inside: string }>;
  /** inside paths covered by an empty tmpfs after the read-only binds */
  hidden: string[];
  /** the session folder, then files and folders over it; bound by descriptor so no path can be swapped */
  descriptors: DescriptorBind[];
  /** the working folder inside */
  cwd: string;
  limits: ScriptLimits;
  /** the program and its arguments inside, after prlimit */
  command: string[];
}

// The environment inside: nothing of the tool-runner's (no model key, no tokens, no NATS credentials).
const environment: Record<string, string> = {
  PATH: "/usr/bin:/bin",
  HOME: "/tmp",
  LANG: "C.UTF-8",
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONUNBUFFERED: "1",
  PYTHONIOENCODING: "utf-8",
};

/**
 * The bwrap command line (bubblewrap 0.8, Debian). A new namespace of every kind (no network: only a loopback
 * interface), a non-root uid, the system read-only from /usr, no /etc, a private /proc, /dev and size-limited
 * /tmp, the BMAD trees read-only, the session read-write, a cleared environment, and prlimit's limits around
 * the script. `--die-with-parent` and `--new-session` keep the script from outliving the tool-runner or
 * reaching its terminal.
 */
export function bwrapArguments(spec: SandboxSpec, system: readonly string[] = systemMounts()): string[] {
  const args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  args.push("--uid", "65534", "--gid", "65534", "--hostname", "sandbox");
  args.push(...system);
  args.push("--proc", "/proc", "--dev", "/dev", "--size", String(spec.limits.tmpBytes), "--tmpfs", "/tmp");
  for (const bind of spec.readOnly) args.push("--ro-bind", bind.host, bind.inside);
  for (const inside of spec.hidden) args.push("--tmpfs", inside);
  for (const bind of spec.descriptors) args.push(bind.writable ? "--bind-fd" : "--ro-bind-fd", String(bind.fd), bind.inside);
  // bwrap's root is a tmpfs without a size limit: read-only, so /tmp (size-limited) and the session are the only places to write
  args.push("--remount-ro", "/");
  args.push("--chdir", spec.cwd, "--clearenv");
  for (const [name, value] of Object.entries(environment)) args.push("--setenv", name, value);
  const { limits } = spec;
  args.push(
    "--",
    sandboxPrograms.prlimit,
    `--as=${limits.memoryBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
    "--",
    ...spec.command,
  );
  return args;
}

/**
 * The read-only system: /usr, plus the top-level folders that merged-/usr systems (Debian 12) keep as links
 * into it, or bind when they are real folders. /etc is left out: python needs none of it.
 */
export function systemMounts(root = "/"): string[] {
  const args = ["--ro-bind", path.join(root, "usr"), "/usr"];
  for (const name of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const host = path.join(root, name);
    const stats = (() => {
      try {
        return lstatSync(host);
      } catch {
        return undefined;
      }
    })();
    if (stats?.isSymbolicLink()) args.push("--symlink", readlinkSync(host), `/${name}`);
    else if (stats?.isDirectory()) args.push("--ro-bind", host, `/${name}`);
  }
  return args;
}
