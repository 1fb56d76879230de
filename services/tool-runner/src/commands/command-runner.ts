import { realpath, type FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { sandboxEntry, binderPrefix, type SandboxEntry } from "../os-sandbox/folder-binder.js";
import { limitedCommand, type ProcessLimits } from "../os-sandbox/process-limits.js";
import type { RunCgroup, SandboxCgroups } from "../os-sandbox/sandbox-cgroups.js";
import { sandboxPrograms } from "../os-sandbox/sandbox-programs.js";
import { SandboxSlots } from "../os-sandbox/sandbox-slots.js";
import { channelChildFd, dataChildFd, seccompChildFd, spawnSandbox } from "../os-sandbox/sandbox-spawn.js";
import { openDirectory } from "../sandbox/descriptor-path.js";
import { commandBwrapArguments, insideNode, passwdFiles } from "./command-bwrap.js";
import { commandLimitsHit, type CommandBounds, type CommandLimitName } from "./command-limits.js";
import { placeLayout, type CommandPlace } from "./command-place.js";
import { withoutHostPaths } from "./host-paths.js";
import { SandboxWatch } from "./sandbox-watch.js";

/** What a command runner is configured with (COMMAND_* settings and what the host offers). */
export interface CommandRunnerOptions {
  /** a command's wall time when it names none (COMMAND_TIMEOUT_MS) */
  timeoutMs: number;
  /** the longest wall time a command may ask for (COMMAND_TIMEOUT_MAX_MS) */
  maxTimeoutMs: number;
  /** memory of one sandbox (COMMAND_MEMORY_MB) */
  memoryMb: number;
  /** processes and threads of one sandbox (COMMAND_PROCESSES) */
  processes: number;
  /** the largest file a command may write (COMMAND_FILE_MB) */
  fileMb: number;
  /** what a command may add to the disk, and the size of its /tmp (COMMAND_DISK_MB) */
  diskMb: number;
  /** stdout and stderr kept, each (COMMAND_OUTPUT_MAX_BYTES) */
  outputMaxBytes: number;
  concurrency: number;
  perUser: number;
  /** the host user of each slot when the tool-runner is root (COMMAND_UID_BASE + slot): bwrap never starts as root */
  spawnAs?: ((slot: number) => { uid: number; gid: number }) | undefined;
  /** per-sandbox cgroups, when the host offers them */
  cgroups?: SandboxCgroups | undefined;
  /** the seccomp filter, when the architecture has one */
  seccomp?: Buffer | undefined;
  /** node's own install folder when it lies outside /usr (bound read-only at /opt/node) */
  nodeFolder?: string | undefined;
}

/** One command to run. */
export interface CommandRequest {
  /** the working tree (and its `.git` when apart) */
  place: CommandPlace;
  /** a shell command line, run by /bin/sh -c from the working tree's root */
  command: string;
  /** wall time asked for; capped at the runner's maximum */
  timeoutMs?: number | undefined;
  /** the project allows the network (`repository.network`) */
  network: boolean;
  /** GIT_* variables the caller sets, for the authorship of commits (GIT_AUTHOR_NAME, GIT_COMMITTER_EMAIL, …) */
  gitEnvironment?: Readonly<Record<string, string>> | undefined;
  /** whose command it is: one chat's commands run one after the other, one user's wait on their own */
  chat: string;
  user: string;
}

/** One finished command. */
export interface CommandRun {
  /** the command's exit status; null when it was stopped */
  exitCode: number | null;
  /** the limits it went past, the one that stopped it first */
  limits: CommandLimitName[];
  stdout: string;
  stderr: string;
  /** stdout or stderr was longer than kept (its head and tail are) */
  truncated: boolean;
  durationMs: number;
  /** the bounds it ran within */
  bounds: CommandBounds;
}

const mebibyte = 1024 * 1024;
/** A command's descriptors: enough for a test runner's workers and watchers. */
const openFiles = 4096;
const gitVariable = /^GIT_[A-Z0-9_]{1,64}$/;

/**
 * Runs the model's shell commands in a working tree (docs/commands.md): each in a bubblewrap sandbox holding the tree
 * read-write at /project (`.git` included), the operator's toolchains read-only, a private /tmp and nothing else of
 * the host, as an unprivileged user, with no network unless the project allows it, under limits per sandbox (wall
 * time, memory, processes, file size, disk written, output). What the command wrote stays in the tree; making it
 * durable is the caller's (`withWorkingTree`, docs/repositories.md).
 */
export class CommandRunner {
  private readonly slots: SandboxSlots;

  constructor(private readonly options: CommandRunnerOptions) {
    this.slots = new SandboxSlots("command", options.concurrency, options.perUser);
  }

  /** The bounds of a command asking for `timeoutMs`. */
  bounds(timeoutMs?: number): CommandBounds {
    const { options } = this;
    return {
      timeoutMs: Math.min(timeoutMs ?? options.timeoutMs, options.maxTimeoutMs),
      memoryBytes: options.memoryMb * mebibyte,
      processes: options.processes,
      fileBytes: options.fileMb * mebibyte,
      diskBytes: options.diskMb * mebibyte,
    };
  }

  /** Whether each sandbox has a cgroup of its own (memory and processes counted per sandbox). */
  get usesCgroups(): boolean {
    return this.options.cgroups !== undefined;
  }

  /** Runs one command; a sandbox that cannot start is thrown as SERVICE_UNAVAILABLE, and nothing ran. */
  async run(request: CommandRequest): Promise<CommandRun> {
    for (const [name, value] of Object.entries(request.gitEnvironment ?? {})) {
      if (!gitVariable.test(name) || value.includes("\0") || value.length > 1024) throw new Error(`not a GIT_* variable a command may be given: ${name}`);
    }
    return this.slots.run(request.chat, request.user, (slot) => this.runInSlot(request, slot));
  }

  private async runInSlot(request: CommandRequest, slot: number): Promise<CommandRun> {
    const { options } = this;
    const bounds = this.bounds(request.timeoutMs);
    const layout = placeLayout(request.place);
    const folders = [...layout.folders, ...(options.nodeFolder === undefined ? [] : [{ host: options.nodeFolder, inside: insideNode, writable: false }])];
    const files = [...layout.files, { inside: "/etc/passwd", content: passwdFiles.passwd }, { inside: "/etc/group", content: passwdFiles.group }];
    // With a cgroup holding the sandbox, it alone bounds memory and processes: address space is not memory (node, Go
    // and JVMs reserve far more than they use), and RLIMIT_NPROC would refuse a fork before the cgroup counts it.
    const limits: ProcessLimits = {
      memoryBytes: options.cgroups ? undefined : bounds.memoryBytes,
      cpuSeconds: Math.ceil(bounds.timeoutMs / 1000),
      processes: options.cgroups ? undefined : bounds.processes,
      fileBytes: bounds.fileBytes,
      openFiles,
    };
    const handles: FileHandle[] = [];
    let entry: SandboxEntry | undefined;
    let cgroup: RunCgroup | undefined;
    let watch: SandboxWatch | undefined;
    try {
      for (const folder of folders) handles.push(await openDirectory(folder.host));
      const hostPaths = await hostPathsOf(folders);
      const user = options.spawnAs?.(slot);
      entry = await sandboxEntry(folders, user, user !== undefined);
      for (const bind of entry.binds) if ("host" in bind) hostPaths.push({ host: bind.host, inside: bind.inside });
      cgroup = await options.cgroups?.create({ memoryBytes: bounds.memoryBytes, processes: bounds.processes, cpus: 1 });
      const run = spawnSandbox({
        args: commandBwrapArguments({
          binds: entry.binds,
          files: files.map((file, index) => ({ fd: dataChildFd(handles.length, index), inside: file.inside })),
          nodeApart: options.nodeFolder !== undefined,
          network: request.network,
          tmpBytes: bounds.diskBytes,
          gitEnvironment: { ...request.gitEnvironment, ...layout.environment },
          seccompFd: options.seccomp ? seccompChildFd : undefined,
          statusFd: channelChildFd,
          command: limitedCommand(limits, ["/bin/sh", "-c", request.command]),
        }),
        bwrapPath: sandboxPrograms.bwrap,
        entry: entry.entry,
        spawnAs: entry.spawnAs,
        cgroup,
        seccomp: options.seccomp,
        descriptors: handles.map((handle) => handle.fd),
        channel: true,
        data: files.map((file) => file.content),
        timeoutMs: bounds.timeoutMs,
        outputMaxBytes: options.outputMaxBytes,
      });
      const status = readStatus(run.channel);
      if (cgroup) watch = new SandboxWatch(cgroup, bounds.diskBytes, () => run.stop());
      const [end, text] = await Promise.all([run.ended, status, run.started.catch(() => undefined)]);
      const seen = await watch?.end();
      const stderr = withoutHostPaths(end.stderr.text(), hostPaths);
      if (!/"child-pid"/.test(text)) {
        throw new AppError("SERVICE_UNAVAILABLE", "The command sandbox could not start; nothing ran", {
          detail: { stderr: stderr.slice(0, 1000), binder: stderr.startsWith(binderPrefix) },
        });
      }
      const exited = /"exit-code"\s*:\s*(\d+)/.exec(text)?.[1];
      const exitCode = end.timedOut || end.stopped || exited === undefined ? null : Number(exited);
      return {
        exitCode,
        limits: commandLimitsHit({ timedOut: end.timedOut, diskExceeded: seen?.diskExceeded === true, cgroup: await cgroup?.limitsHit(), exitCode }),
        stdout: withoutHostPaths(end.stdout.text(), hostPaths),
        stderr,
        truncated: end.stdout.totalBytes > options.outputMaxBytes || end.stderr.totalBytes > options.outputMaxBytes,
        durationMs: end.durationMs,
        bounds,
      };
    } finally {
      await watch?.end();
      await cgroup?.remove();
      await entry?.remove();
      await Promise.all(handles.map((handle) => handle.close()));
    }
  }
}

/** The place's host folders as given and as resolved, each with its name inside. */
async function hostPathsOf(folders: ReadonlyArray<{ host: string; inside: string }>): Promise<Array<{ host: string; inside: string }>> {
  const paths: Array<{ host: string; inside: string }> = [];
  for (const folder of folders) {
    paths.push(folder, { host: await realpath(folder.host), inside: folder.inside });
  }
  return paths;
}

/** bwrap's JSON status (`--json-status-fd`): a few small objects, read to the end (64 KiB at most). */
function readStatus(channel: Readable | undefined): Promise<string> {
  return new Promise((resolve) => {
    if (!channel) return resolve("");
    let text = "";
    channel.on("data", (chunk: Buffer) => {
      if (text.length < 65_536) text += chunk.toString("utf8");
    });
    channel.on("error", () => resolve(text));
    channel.on("close", () => resolve(text));
  });
}
