import { bwrapFrame, systemMounts } from "../os-sandbox/bwrap-frame.js";
import { bindArguments, type FolderBind } from "../os-sandbox/folder-binder.js";

/** Everything one sandboxed script run needs, in the order bwrap must mount it. */
export interface SandboxSpec {
  /**
   * the folders bound, in order: a working tree's (read-write at `/sandbox/project`, its `.git` and objects beside it),
   * then the BMAD trees and skill folders, read-only below `/sandbox/project`
   */
  readOnly: FolderBind[];
  /** the project's writable place: a tmpfs of its own size mounted before the binds, so the trees are bound into it */
  projectPlace?: { inside: string; sizeBytes: number } | undefined;
  /** the other writable places: each a tmpfs of its own size, mounted after the binds (a scratch place lies in a tree) */
  places: Array<{ inside: string; sizeBytes: number }>;
  /** small read-only files bound last, over what the binds hold (a working tree's `.git` pointers): the child's fd of each */
  files?: ReadonlyArray<{ fd: number; inside: string }> | undefined;
  /** variables added to the environment (a working tree's GIT_* authorship) */
  environment?: Readonly<Record<string, string>> | undefined;
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
 * A script's bwrap command line (os-sandbox/bwrap-frame.ts): no network, the system read-only from /usr, no /etc,
 * no /proc (it would show the host's paths in mountinfo and bwrap's own command line as pid 1), a minimal /dev, the
 * BMAD trees read-only, every writable place a size-limited tmpfs.
 */
export function bwrapArguments(spec: SandboxSpec, system: readonly string[] = systemMounts()): string[] {
  const mounts = [...system, "--dev", "/dev", "--size", String(spec.tmpBytes), "--tmpfs", "/tmp"];
  if (spec.projectPlace) mounts.push("--size", String(spec.projectPlace.sizeBytes), "--tmpfs", spec.projectPlace.inside);
  mounts.push(...bindArguments(spec.readOnly));
  for (const place of spec.places) mounts.push("--size", String(place.sizeBytes), "--tmpfs", place.inside);
  for (const file of spec.files ?? []) mounts.push("--ro-bind-data", String(file.fd), file.inside);
  return bwrapFrame({ uid: 65534, network: false, mounts, cwd: spec.cwd, environment: { ...environment, ...spec.environment }, seccompFd: spec.seccompFd, command: spec.command });
}
