import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";

/** What every bwrap sandbox is made of besides its own mounts. */
export interface BwrapFrame {
  /** the sandbox's uid and gid inside (mapped to the host user bwrap starts as) */
  uid: number;
  /** keep the host's network namespace; otherwise only a loopback interface of the sandbox's own */
  network: boolean;
  /** bwrap's mount arguments, in order, after the namespaces and before `/` is made read-only */
  mounts: readonly string[];
  /** the working folder inside */
  cwd: string;
  /** the whole environment inside */
  environment: Readonly<Record<string, string>>;
  /** the child's descriptor bwrap reads the seccomp filter from, when there is one */
  seccompFd?: number | undefined;
  /** the child's descriptor bwrap writes its JSON status to: `{"child-pid"}` once the sandbox is set up, then `{"exit-code"}` */
  statusFd?: number | undefined;
  /** what bwrap runs */
  command: readonly string[];
}

/**
 * The bwrap command line (bubblewrap 0.8, Debian) around a sandbox's mounts: a new namespace of every kind (no
 * network unless `network`: then only the network namespace is the host's), nested user namespaces refused,
 * every capability dropped, a fixed non-root uid and hostname, `/` read-only after the mounts (bwrap's root is a
 * tmpfs without a size limit, so the sandbox's writable places are only those it mounts), a cleared environment
 * and the seccomp filter. `--die-with-parent` and `--new-session` keep the sandbox from outliving the tool-runner or
 * reaching its terminal.
 */
export function bwrapFrame(frame: BwrapFrame): string[] {
  const args = ["--unshare-all", ...(frame.network ? ["--share-net"] : []), "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"];
  args.push("--cap-drop", "ALL", "--uid", String(frame.uid), "--gid", String(frame.uid), "--hostname", "sandbox");
  args.push(...frame.mounts, "--remount-ro", "/", "--chdir", frame.cwd, "--clearenv");
  for (const [name, value] of Object.entries(frame.environment)) args.push("--setenv", name, value);
  if (frame.seccompFd !== undefined) args.push("--seccomp", String(frame.seccompFd));
  if (frame.statusFd !== undefined) args.push("--json-status-fd", String(frame.statusFd));
  args.push("--", ...frame.command);
  return args;
}

/**
 * The read-only system: /usr, plus the top-level folders that merged-/usr systems (Debian 12) keep as links
 * into it, or bind when they are real folders. /etc is left out: neither python nor git or node needs it.
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
