import { realpathSync } from "node:fs";
import path from "node:path";
import { bwrapFrame, systemMounts } from "../os-sandbox/bwrap-frame.js";
import { bindArguments, type FolderBind } from "../os-sandbox/folder-binder.js";
import { insideTree } from "./command-place.js";

/** The uid and gid a command runs as inside (the host user bwrap starts as, mapped). */
export const commandUid = 1000;

/** Where an operator's node installed outside /usr is seen inside. */
export const insideNode = "/opt/node";

/** The folder of the node running the tool-runner when it lies outside /usr (nvm, a tarball): commands get it too. */
export function nodeFolderOutsideUsr(executable = process.execPath): string | undefined {
  const real = realpathSync(executable);
  return real.startsWith("/usr/") ? undefined : path.dirname(path.dirname(real));
}

/** Everything one command's sandbox is made of. */
export interface CommandSandboxSpec {
  /** the place's folders, then the toolchains' (all from `sandboxEntry`, in the order they were given) */
  binds: FolderBind[];
  /** the small files bound read-only over the place's own: the child's descriptor of each, and where */
  files: Array<{ fd: number; inside: string }>;
  /** whether node's own folder is bound at /opt/node (an install outside /usr) */
  nodeApart: boolean;
  network: boolean;
  tmpBytes: number;
  /** the caller's GIT_* variables (authorship) */
  gitEnvironment: Readonly<Record<string, string>>;
  seccompFd?: number | undefined;
  statusFd: number;
  /** what runs: prlimit, then /bin/sh -c */
  command: string[];
}

// What a resolver and TLS need when the project allows the network; never the host's users, keys or anything else.
const networkEtc = ["hosts", "resolv.conf", "nsswitch.conf", "ssl", "ca-certificates"];

/** The one user and group the sandbox knows (no host user is ever listed), for tools that look their user up. */
export const passwdFiles = {
  passwd: `sandbox:x:${commandUid}:${commandUid}:sandbox:/tmp:/bin/sh\n`,
  group: `sandbox:x:${commandUid}:\n`,
} as const;

/**
 * A command's bwrap command line (os-sandbox/bwrap-frame.ts): the system read-only from /usr (git, python3, node and
 * whatever else the operator installed there; node's own folder at /opt/node when it lies elsewhere), an /etc
 * holding only a passwd and group naming the sandbox's user (and, with the network allowed, the resolver's and TLS's
 * files), no /proc and no /sys (they would show the host's processes, paths and mounts), a minimal /dev, a private
 * /tmp of its own size, the working tree read-write at /project, and an environment of the command's own.
 */
export function commandBwrapArguments(spec: CommandSandboxSpec, system: readonly string[] = systemMounts()): string[] {
  const mounts = [...system, "--dev", "/dev", "--size", String(spec.tmpBytes), "--tmpfs", "/tmp", "--dir", "/etc"];
  if (spec.network) for (const name of networkEtc) mounts.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
  mounts.push(...bindArguments(spec.binds));
  for (const file of spec.files) mounts.push("--ro-bind-data", String(file.fd), file.inside);
  const path = [...(spec.nodeApart ? [`${insideNode}/bin`] : []), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
  const environment = {
    PATH: path,
    HOME: "/tmp",
    USER: "sandbox",
    LOGNAME: "sandbox",
    LANG: "C.UTF-8",
    // no one can answer a prompt, and test runners that watch for changes unless told they run in CI stop after one run
    CI: "true",
    GIT_TERMINAL_PROMPT: "0",
    ...spec.gitEnvironment,
  };
  return bwrapFrame({
    uid: commandUid,
    network: spec.network,
    mounts,
    cwd: insideTree,
    environment,
    seccompFd: spec.seccompFd,
    statusFd: spec.statusFd,
    command: spec.command,
  });
}
