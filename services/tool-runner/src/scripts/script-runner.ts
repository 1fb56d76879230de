import { mkdtemp, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef, type ToolContext } from "@agent-orchestrator/shared/wire";
import type { Sandbox } from "../sandbox/index.js";
import { openDirectory } from "../sandbox/descriptor-path.js";
import { detectProjectLayout } from "../sandbox/project-layout.js";
import type { FileStore } from "../store/file-store.js";
import { limitedCommand, type ProcessLimits } from "../os-sandbox/process-limits.js";
import type { RunCgroup, SandboxCgroups } from "../os-sandbox/sandbox-cgroups.js";
import { sandboxPrograms } from "../os-sandbox/sandbox-programs.js";
import { SandboxSlots } from "../os-sandbox/sandbox-slots.js";
import { dataChildFd, seccompChildFd } from "../os-sandbox/sandbox-spawn.js";
import { workingTreeLayout } from "../os-sandbox/working-tree-layout.js";
import { monitorLayout } from "../repository/monitor-hook.js";
import { gitConfigEnvironment } from "../git/index.js";
import { bwrapArguments } from "./bwrap-arguments.js";
import { launcherSource, type LauncherConfig, type LauncherPlace } from "./sandbox-launcher.js";
import { binderPrefix, sandboxEntry, type SandboxEntry } from "../os-sandbox/folder-binder.js";
import { runSandboxProcess } from "./sandbox-process.js";
import { argumentInside, insideSession, planSandboxView, virtualizeText } from "./sandbox-view.js";
import { parseScriptCommand } from "./script-command.js";
import { locateScript } from "./script-location.js";
import { commitWorkspace, type SpaceRefusal } from "./workspace-commit.js";
import { workspaceInputs } from "./workspace-inputs.js";
import { settingsOverlay } from "./settings-overlay.js";
import { placeOf, workspacePlaces, type SpaceKind } from "./workspace-places.js";
import { limitHit, type SandboxBounds, type ScriptLimitName } from "./sandbox-bounds.js";
import { checkBindPoints, installExcludes, scriptTreeInside, sessionOnly, type ScriptTree } from "./script-tree.js";

/** What a script runner is configured with (SCRIPT_* settings and what the host offers). */
export interface ScriptRunnerOptions {
  sandbox: Sandbox;
  /** the projects' and chats' own files: what a run starts with, and where what it changed is stored */
  files: FileStore;
  timeoutMs: number;
  memoryMb: number;
  outputMaxBytes: number;
  concurrency: number;
  /** runs one user may have admitted at once (SCRIPT_CONCURRENCY_PER_USER) */
  perUser?: number | undefined;
  /** processes of one sandbox (SCRIPT_PROCESSES) */
  processes?: number | undefined;
  /** bytes one run may write in each writable place (SCRIPT_DISK_MB) */
  diskBytes?: number | undefined;
  /** the host user of each slot: bwrap never starts as root */
  spawnAs?: ((slot: number) => { uid: number; gid: number }) | undefined;
  /**
   * the slots' users cannot reach the BMAD install (BMAD_ROOT under a private home): the root tool-runner binds
   * its folders for them first (install-binder.ts); found by the start check
   */
  bindInstallFirst?: boolean | undefined;
  /** per-sandbox cgroups, when the host offers them */
  cgroups?: SandboxCgroups | undefined;
  /** the seccomp filter, when the architecture has one */
  seccomp?: Buffer | undefined;
}

/** One finished run, paths virtual. */
export interface ScriptRun {
  /** null when the run was stopped at the time limit or the sandbox did not report how it ended */
  exitCode: number | null;
  timedOut: boolean;
  /** the limit the run went past; nothing it wrote was kept */
  limit?: ScriptLimitName | undefined;
  stdout: string;
  stderr: string;
  /** regular files the run created (`created`) or changed and that were stored, `{project-root}/…` or `{session-folder}/…` */
  filesWritten: Array<{ path: string; size: number; created: boolean }>;
  /** files the run deleted, deleted in the store too */
  filesRemoved: string[];
  /** what the run left that was not kept (links, FIFOs, devices, names that cannot be served, a space over its quota) */
  filesRefused: Array<{ path: string; reason: string }>;
  /** the spaces that refused the run's changes as a whole (their quota): none of them were kept */
  spacesRefused: SpaceRefusal[];
  durationMs: number;
}

const mebibyte = 1024 * 1024;
// No BMAD script needs more open files or a bigger /tmp; RLIMIT_FSIZE is the disk limit, since no file can be larger.
const fixedLimits = { openFiles: 256, tmpBytes: 64 * mebibyte };
/** Entries the launcher walks after a run beyond those it was given. */
const maxNewEntries = 10_000;

/** Who runs a script: the chat, its project, the user and the agent; the author of every file the run stores. */
export type ScriptCaller = Pick<ToolContext, "session_id" | "project_id" | "user" | "agent_id" | "settings"> & { tool_call_id?: string | undefined };

/**
 * Runs BMAD's Python scripts for the model: the command is parsed without a shell, the script must be one of
 * the install's, and it runs in a bubblewrap sandbox that sees the BMAD trees and skill folders read-only and
 * private copies of the project's own files and the chat's scratch files, from the store, each in a
 * size-limited tmpfs; no host folder is writable inside but a project's git working tree, when it has one
 * (`ScriptTree`). After the run, only regular files come back,
 * checked by name, and only when the run stayed within every limit; they are stored as new revisions before
 * the run answers (docs/security.md "Scripts"). What it prints comes back with virtual paths.
 */
export class ScriptRunner {
  private readonly slots: SandboxSlots;
  private readonly limits: ProcessLimits & { memoryBytes: number; processes: number };
  private readonly diskBytes: number;

  constructor(private readonly options: ScriptRunnerOptions) {
    this.slots = new SandboxSlots("script", options.concurrency, options.perUser ?? options.concurrency);
    this.diskBytes = options.diskBytes ?? 64 * mebibyte;
    this.limits = {
      memoryBytes: options.memoryMb * mebibyte,
      cpuSeconds: Math.ceil(options.timeoutMs / 1000),
      processes: options.processes ?? 64,
      fileBytes: this.diskBytes,
      openFiles: fixedLimits.openFiles,
    };
  }

  /** The time limit of one run, for messages. */
  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Whether each sandbox has a cgroup of its own (memory and processes limited per sandbox, not per process). */
  get usesCgroups(): boolean {
    return this.options.cgroups !== undefined;
  }

  /** The bounds of every run, for messages. */
  get bounds(): SandboxBounds {
    return { memoryBytes: this.limits.memoryBytes, processes: this.limits.processes, diskBytes: this.diskBytes, timeoutMs: this.options.timeoutMs };
  }

  /**
   * Checks and runs one command line in the chat's sandbox. Refusals are thrown as AppErrors. With `tree` (a project
   * with a git repository), `{project-root}` is that working tree, bound from the host with its `.git`, instead of
   * the project's stored files; keeping what the script changed there is the caller's (withWorkingTree).
   */
  async run(caller: ScriptCaller, command: string, tree?: ScriptTree): Promise<ScriptRun> {
    const parsed = parseScriptCommand(command);
    const { sandbox, files } = this.options;
    // one user's scripts wait on each other, not on everyone's (SCRIPT_CONCURRENCY_PER_USER); a chat's one after the other
    return this.slots.run(caller.session_id, caller.user, async (slot) => {
      const roots = (await sandbox.roots({ session_id: caller.session_id, project_id: caller.project_id })).lexical;
      const layout = await detectProjectLayout(sandbox.projectRoot);
      const view = await planSandboxView({ projectRoot: sandbox.projectRoot, sessionFolder: roots.session, layout });
      const script = await locateScript({ view, roots, script: parsed.script });
      const args = parsed.args.map((word) => argumentInside(view, roots, word));
      const spaces: Record<SpaceKind, FileSpaceRef> = { project: { kind: "project", id: caller.project_id }, session: { kind: "session", id: caller.session_id } };
      if (tree) await checkBindPoints(tree.place, view.readOnly);
      const workspace = await workspaceInputs(files, spaces, tree ? ["session"] : ["project", "session"]);
      const { existing } = workspace;
      // BMAD's resolvers read the chat's settings where they read the install's (settings-overlay.ts)
      const overlay = await settingsOverlay(view, caller.settings);
      const inputs = overlay ? [...workspace.inputs, ...overlay.inputs] : workspace.inputs;
      const places = workspacePlaces(view);
      if (overlay) places.overTrees.unshift(overlay.place);
      // a working tree is bound from the host, not handed over by the launcher
      const every = tree ? places.overTrees : [places.project, ...places.overTrees];
      const treeLayout = tree && workingTreeLayout(tree.place, scriptTreeInside);
      // a script's git keeps the monitor's token in the index, or the next command's first git status reads every file
      const monitor = tree?.place.monitor !== undefined && tree.place.gitDirectory !== undefined ? monitorLayout(tree.place.monitor, scriptTreeInside.tree) : undefined;
      const excludes = installExcludes(view.readOnly);
      const boundFolders = [...(treeLayout?.folders ?? []), ...(monitor?.folders ?? []), ...view.readOnly];
      const placeSize = (place: LauncherPlace) =>
        this.diskBytes + inputs.filter((input) => placeOf(every, input.relative) === place).reduce((sum, input) => sum + input.size, 0);
      const launcher: LauncherConfig = {
        places: every,
        command: limitedCommand(this.limits, [sandboxPrograms.python, "-B", "-s", script, ...args]),
        cwd: insideSession,
        maxEntries: maxNewEntries + inputs.length,
        maxPathBytes: 1024,
      };
      const staging = await mkdtemp(path.join(tmpdir(), "ao-script-report-"));
      const folders: FileHandle[] = [];
      let cgroup: RunCgroup | undefined;
      let entry: SandboxEntry | undefined;
      try {
        for (const folder of boundFolders) folders.push(await openDirectory(folder.host));
        // a working tree is writable: a root tool-runner binds it first, idmapped to the slot's user (folder-binder.ts)
        entry = await sandboxEntry(boundFolders, this.options.spawnAs?.(slot), this.options.bindInstallFirst === true || tree !== undefined);
        const data = treeLayout ? [...treeLayout.files, excludes.file] : [];
        cgroup = await this.options.cgroups?.create({ memoryBytes: this.limits.memoryBytes, processes: this.limits.processes, cpus: 1 });
        const exit = await runSandboxProcess({
          args: bwrapArguments({
            projectPlace: tree ? undefined : { inside: places.project.inside, sizeBytes: placeSize(places.project) },
            readOnly: entry.binds,
            files: data.map((file, index) => ({ fd: dataChildFd(folders.length, index), inside: file.inside })),
            environment: tree && { ...tree.gitEnvironment, ...gitConfigEnvironment([...(monitor?.settings ?? []), excludes.setting]) },
            places: places.overTrees.map((place) => ({ inside: place.inside, sizeBytes: placeSize(place) })),
            tmpBytes: fixedLimits.tmpBytes,
            cwd: insideSession,
            seccompFd: this.options.seccomp ? seccompChildFd : undefined,
            command: [sandboxPrograms.python, "-I", "-c", launcherSource, JSON.stringify(launcher)],
          }),
          inputs,
          seccomp: this.options.seccomp,
          descriptors: folders.map((folder) => folder.fd),
          data: data.map((file) => file.content),
          staging,
          reportMaxBytes: every.reduce((sum, place) => sum + placeSize(place), 0),
          reportMaxFrames: 2 * launcher.maxEntries + 100,
          timeoutMs: this.options.timeoutMs,
          outputMaxBytes: this.options.outputMaxBytes,
          spawnAs: entry.spawnAs,
          entry: entry.entry,
          cgroup,
          bwrapPath: sandboxPrograms.bwrap,
        });
        const { report } = exit;
        if (!report.end && (exit.stderr.startsWith("bwrap: ") || exit.stderr.startsWith(binderPrefix))) {
          throw new AppError("SERVICE_UNAVAILABLE", "The script sandbox could not start; do this step by hand as the skill's fallback says", {
            detail: { stderr: exit.stderr.slice(0, 1000) },
          });
        }
        if (report.end?.startError !== undefined) {
          throw new AppError("SCRIPT_FAILED", `The script could not start: ${report.end.startError}`);
        }
        const limit = exit.timedOut ? undefined : limitHit(report, await cgroup?.limitsHit());
        if (!exit.timedOut && limit === undefined && !report.end) {
          throw new AppError("SCRIPT_FAILED", "The script's sandbox stopped before it could report the files written; nothing it wrote was kept", {
            detail: { stderr: exit.stderr.slice(0, 1000), violation: report.violation },
          });
        }
        const kept = !exit.timedOut && limit === undefined && report.end !== undefined;
        const author = {
          user: caller.user,
          session_id: caller.session_id,
          agent_id: caller.agent_id,
          ...(caller.tool_call_id === undefined ? {} : { tool_call_id: caller.tool_call_id }),
        };
        const commit = kept ? await commitWorkspace(tree ? sessionOnly(report) : report, { files, spaces, existing, author }) : undefined;
        return {
          exitCode: report.end ? (report.end.exit ?? (report.end.signal === null ? null : 128 + report.end.signal)) : null,
          timedOut: exit.timedOut,
          limit,
          stdout: virtualizeText(view, exit.stdout),
          stderr: virtualizeText(view, exit.stderr),
          filesWritten: commit?.written ?? [],
          filesRemoved: commit?.removed ?? [],
          filesRefused: commit?.refused ?? [],
          spacesRefused: commit?.spacesRefused ?? [],
          durationMs: exit.durationMs,
        };
      } finally {
        await cgroup?.remove();
        await entry?.remove();
        await Promise.all(folders.map((folder) => folder.close()));
        await rm(staging, { recursive: true, force: true });
      }
    });
  }
}
