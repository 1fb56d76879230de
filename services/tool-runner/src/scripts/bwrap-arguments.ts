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
  /** RLIMIT_NPROC: processes of the sandbox's user (per sandbox when each slot has its own user; never applied to root) */
  processes: number;
  /** RLIMIT_FSIZE: the largest file a script may write */
  fileBytes: number;
  /** RLIMIT_NOFILE */
  openFiles: number;
}

/**
 * A folder bound read-only at `inside`: a descriptor the tool-runner opened (a child fd number), so no path can
 * be swapped between the check and the mount; or, for an install the sandbox's user cannot reach, the folder a
 * root tool-runner bound it onto first (install-binder.ts).
 */
export type ReadOnlyBind = { fd: number; inside: string } | { host: string; inside: string };

/** Everything one sandboxed run needs, in the order bwrap must mount it. */
export interface SandboxSpec {
  /** the BMAD trees and skill folders, bound read-only below `/sandbox/project` */
  readOnly: ReadOnlyBind[];
  /** the project's writable place: a tmpfs of its own size mounted before the binds, so the trees are bound into it */
  projectPlace?: { inside: string; sizeBytes: number } | undefined;
  /** the other writable places: each a tmpfs of its own size, mounted after the binds (a scratch place lies in a tree) */
  places: Array<{ inside: string; sizeBytes: number }>;
  /** size of the private /tmp */
  tmpBytes: number;
  /** the working folder inside */
  cwd: string;
  /** the child's descriptor bwrap reads the seccomp filter from, when there is one */
  seccompFd?: number | undefined;
  /** what bwrap runs: the launcher, which runs the script */
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
 * interface), a non-root uid, the system read-only from /usr, no /etc, no /proc (it would show the host's
 * paths in mountinfo and bwrap's own command line as pid 1), a minimal /dev, the BMAD trees read-only, every
 * writable place a size-limited tmpfs, a cleared environment and the seccomp filter. `--die-with-parent` and
 * `--new-session` keep the sandbox from outliving the tool-runner or reaching its terminal.
 */
export function bwrapArguments(spec: SandboxSpec, system: readonly string[] = systemMounts()): string[] {
  const args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  args.push("--uid", "65534", "--gid", "65534", "--hostname", "sandbox");
  args.push(...system);
  args.push("--dev", "/dev", "--size", String(spec.tmpBytes), "--tmpfs", "/tmp");
  if (spec.projectPlace) args.push("--size", String(spec.projectPlace.sizeBytes), "--tmpfs", spec.projectPlace.inside);
  for (const bind of spec.readOnly) args.push(...("fd" in bind ? ["--ro-bind-fd", String(bind.fd)] : ["--ro-bind", bind.host]), bind.inside);
  for (const place of spec.places) args.push("--size", String(place.sizeBytes), "--tmpfs", place.inside);
  // bwrap's root is a tmpfs without a size limit: read-only, so the places and /tmp are the only ones to write
  args.push("--remount-ro", "/");
  args.push("--chdir", spec.cwd, "--clearenv");
  for (const [name, value] of Object.entries(environment)) args.push("--setenv", name, value);
  if (spec.seccompFd !== undefined) args.push("--seccomp", String(spec.seccompFd));
  args.push("--", ...spec.command);
  return args;
}

/** The script's own command line under its kernel limits (prlimit applies them, then runs it). */
export function limitedCommand(limits: ScriptLimits, command: readonly string[]): string[] {
  return [
    sandboxPrograms.prlimit,
    `--as=${limits.memoryBytes}`,
    // a soft limit below the hard one: the script gets SIGXCPU, which tells a CPU limit from any other kill
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
    "--",
    ...command,
  ];
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
