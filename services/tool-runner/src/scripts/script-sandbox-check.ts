import { constants } from "node:fs";
import { access, mkdtemp, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { bwrapArguments } from "./bwrap-arguments.js";
import type { SandboxCgroups } from "../os-sandbox/sandbox-cgroups.js";
import { sandboxPrograms } from "../os-sandbox/sandbox-programs.js";
import { seccompChildFd } from "../os-sandbox/sandbox-spawn.js";
import { launcherSource, type LauncherConfig } from "./sandbox-launcher.js";
import { openDirectory } from "../sandbox/descriptor-path.js";
import { errnoCode } from "../paths/sandbox-error.js";
import { sandboxEntry, type SandboxEntry } from "../os-sandbox/folder-binder.js";
import { runSandboxProcess } from "./sandbox-process.js";
import { insideProject, insideSession } from "./sandbox-view.js";

/**
 * Whether scripts can run here, and if not, why (for the operator's log); `bindInstallFirst`: only with the
 * root tool-runner binding the install for the sandbox's user (install-binder.ts).
 */
export type ScriptSandboxCheck = { ok: true; seccomp: boolean; bindInstallFirst: boolean } | { ok: false; reason: string };

/** What the check runs with: the same user, cgroups and filter as the first slot's scripts. */
export interface ScriptSandboxCheckOptions {
  spawnAs?: { uid: number; gid: number } | undefined;
  cgroups?: SandboxCgroups | undefined;
  seccomp?: Buffer | undefined;
  /** BMAD_ROOT: bound read-only as every run binds its trees, so a sandbox user that cannot reach it is found now */
  projectRoot?: string | undefined;
}

const installHint: Record<keyof typeof sandboxPrograms, string> = {
  bwrap: "install Debian's bubblewrap package",
  prlimit: "install util-linux",
  python: "install python3 (3.11+; BMAD's scripts need only its standard library)",
};

// tries a setuid chmod: the filter must refuse it, or the run says it was allowed
const probe = `
import os
open("probe", "w").close()
try:
    os.chmod("probe", 0o4755)
    print("sandbox ok, setuid allowed")
except PermissionError:
    print("sandbox ok, setuid refused")
`;

/**
 * Runs a small python program in the same sandbox scripts get (launcher, tmpfs session, user, cgroup, seccomp
 * filter, BMAD_ROOT bound read-only), once at start. It fails where bwrap is missing, where the kernel or
 * container refuses unprivileged user namespaces (a container without them, or with a seccomp profile that
 * blocks `unshare`/`clone` of namespaces), or where a filter was given and a setuid chmod still went through.
 * When the sandbox's user cannot reach BMAD_ROOT (a root tool-runner, the install under a 0700 home), it tries
 * again with the tool-runner binding the install for that user first (install-binder.ts), and says which
 * worked: runs then do the same. What still fails is said with what to change.
 */
export async function checkScriptSandbox(options: ScriptSandboxCheckOptions = {}): Promise<ScriptSandboxCheck> {
  for (const [name, program] of Object.entries(sandboxPrograms) as Array<[keyof typeof sandboxPrograms, string]>) {
    const found = await access(program, constants.X_OK).then(() => true, () => false);
    if (!found) return { ok: false, reason: `${program} not found: ${installHint[name]}` };
  }
  let project: FileHandle | undefined;
  if (options.projectRoot !== undefined) {
    try {
      project = await openDirectory(options.projectRoot);
    } catch (error) {
      return { ok: false, reason: `the tool-runner cannot open BMAD_ROOT (${errnoCode(error) ?? String(error)}), so no sandbox could see the install` };
    }
  }
  try {
    const direct = await probeRun(options, project, false);
    if (direct.ok || !direct.unreachable || options.spawnAs === undefined || project === undefined) return direct.ok ? { ...direct, bindInstallFirst: false } : { ok: false, reason: direct.reason };
    const bound = await probeRun(options, project, true);
    if (bound.ok) return { ...bound, bindInstallFirst: true };
    return {
      ok: false,
      reason: `the sandbox's user (host uid ${options.spawnAs.uid}) cannot reach BMAD_ROOT, and the tool-runner could not bind it for that user (${bound.reason}): every folder on its path must be searchable by others (chmod o+x) and its files readable (chmod -R o+rX)`,
    };
  } finally {
    await project?.close();
  }
}

type ProbeResult = { ok: true; seccomp: boolean } | { ok: false; reason: string; unreachable: boolean };

async function probeRun(options: ScriptSandboxCheckOptions, project: FileHandle | undefined, bindFirst: boolean): Promise<ProbeResult> {
  const staging = await mkdtemp(path.join(tmpdir(), "ao-script-check-"));
  const cgroup = await options.cgroups?.create({ memoryBytes: 256 * 1024 * 1024, processes: 16, cpus: 1 }).catch(() => undefined);
  let entry: SandboxEntry | undefined;
  try {
    entry = await sandboxEntry(project && options.projectRoot !== undefined ? [{ host: options.projectRoot, inside: insideProject }] : [], options.spawnAs, bindFirst);
    const launcher: LauncherConfig = {
      places: [{ inside: insideSession, prefix: "session" }],
      command: [sandboxPrograms.python, "-B", "-s", "-c", probe],
      cwd: insideSession,
      maxEntries: 100,
      maxPathBytes: 1024,
    };
    const exit = await runSandboxProcess({
      args: bwrapArguments({
        readOnly: entry.binds,
        places: [{ inside: insideSession, sizeBytes: 1024 * 1024 }],
        tmpBytes: 1024 * 1024,
        cwd: insideSession,
        seccompFd: options.seccomp ? seccompChildFd : undefined,
        command: [sandboxPrograms.python, "-I", "-c", launcherSource, JSON.stringify(launcher)],
      }),
      inputs: [],
      seccomp: options.seccomp,
      descriptors: project ? [project.fd] : [],
      staging,
      reportMaxBytes: 1024 * 1024,
      reportMaxFrames: 100,
      timeoutMs: 10_000,
      outputMaxBytes: 4096,
      spawnAs: entry.spawnAs,
      entry: entry.entry,
      cgroup,
      bwrapPath: sandboxPrograms.bwrap,
    });
    const printed = exit.stdout.trim();
    if (exit.report.end?.exit === 0 && printed.startsWith("sandbox ok")) {
      const refused = printed.endsWith("setuid refused");
      if (options.seccomp && !refused) return { ok: false, reason: "the seccomp filter did not apply: a setuid chmod went through", unreachable: false };
      return { ok: true, seccomp: refused };
    }
    const unreachable = /Can't find source path .*Permission denied/.test(exit.stderr);
    if (unreachable && options.spawnAs) {
      return {
        ok: false,
        unreachable,
        reason: `the sandbox's user (host uid ${options.spawnAs.uid}) cannot reach BMAD_ROOT: every folder on its path must be searchable by others (chmod o+x) and its files readable (chmod -R o+rX)`,
      };
    }
    const why = exit.timedOut ? "it did not finish within 10 s" : (exit.stderr.trim().split("\n")[0] ?? "") || `exit code ${exit.exitCode}`;
    return { ok: false, reason: `a sandboxed test run failed: ${why}`, unreachable };
  } catch (error) {
    return { ok: false, reason: `a sandboxed test run failed: ${error instanceof Error ? error.message : String(error)}`, unreachable: false };
  } finally {
    await entry?.remove();
    await cgroup?.remove();
    await rm(staging, { recursive: true, force: true });
  }
}
