import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { gitConfigEnvironment } from "./config-environment.js";

/** Where one git run works: always a repository the host made, never one a command or a remote could configure. */
export interface GitPlace {
  /** GIT_DIR: a repository the host made and whose config it wrote */
  gitDir: string;
  /** GIT_WORK_TREE, for commands on files */
  workTree?: string;
  /** GIT_INDEX_FILE */
  indexFile?: string;
  /** GIT_OBJECT_DIRECTORY: where new objects go */
  objectDirectory?: string;
  /** GIT_ALTERNATE_OBJECT_DIRECTORIES: more places objects are read from (host folders only) */
  alternates?: readonly string[];
}

/** One git run. */
export interface GitRun extends GitPlace {
  args: readonly string[];
  /** the folder git starts in (pathspecs are relative to it); by default the tool-runner's own */
  cwd?: string;
  /** written to git's stdin, then closed: bytes, or a stream (a bundle's pack) */
  input?: Uint8Array | string | NodeJS.ReadableStream;
  /** kills git when aborted (a clone past its size) */
  signal?: AbortSignal;
  /** more settings on the command line, before the hardened ones, which win over them */
  settings?: ReadonlyArray<readonly [key: string, value: string]>;
  /** more settings, given by environment (GIT_CONFIG_COUNT), so a secret one is never in a process's arguments */
  secretConfig?: ReadonlyArray<readonly [key: string, value: string]>;
  /** protocols a fetch may use beyond none (`https`, `file` for a bundle) */
  protocols?: readonly string[];
  timeoutMs?: number;
  /** stdout kept at most; past it the run fails */
  maxOutputBytes?: number;
}

/** What a git run printed. */
export interface GitResult {
  stdout: Buffer;
  stderr: string;
}

/** A git run that failed: its exit and stderr are for the log (they may hold host paths), never for a client. */
export class GitFailed extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ""} failed (${exitCode ?? "killed"}): ${stderr.slice(0, 2000)}`);
    this.name = "GitFailed";
  }
}

const defaultTimeoutMs = 120_000;
const defaultMaxOutputBytes = 64 * 1024 * 1024;
const stderrKeptBytes = 16 * 1024;

/**
 * Settings that switch off every way a repository's or a user's config makes git run a program or reach out
 * (docs/repositories.md "Git on the host never runs what a repository says"). Command-line settings win over any
 * config file, and the host's repositories have no config but what the host wrote; these hold even so.
 * (`diff.external` cannot be switched off this way; only `git diff` itself runs it, which the host never does.)
 */
export const hardenedSettings: ReadonlyArray<readonly [string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.sshCommand", "false"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["core.askPass", ""],
  ["core.gitProxy", ""],
  ["core.symlinks", "true"],
  ["core.untrackedCache", "false"],
  ["core.splitIndex", "false"],
  ["credential.helper", ""],
  ["sequence.editor", "false"],
  ["gpg.program", "false"],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["http.followRedirects", "false"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["advice.detachedHead", "false"],
  ["init.defaultBranch", "main"],
  ["transfer.fsckObjects", "true"],
];

/**
 * Runs the system's `git` with the hardened settings above and an environment holding nothing of the
 * tool-runner's: no secret, no `GIT_*` variable a caller did not set, no pager, no prompt.
 */
export async function runGit(run: GitRun): Promise<GitResult> {
  const settings = [...(run.settings ?? []), ...hardenedSettings, ["protocol.allow", "never"] as const, ...(run.protocols ?? []).map((protocol) => [`protocol.${protocol}.allow`, "always"] as const)];
  const args = [...settings.flatMap(([key, value]) => ["-c", `${key}=${value}`]), ...run.args];
  const { child, kill } = spawnGit(args, { env: gitEnvironment(run), timeoutMs: run.timeoutMs ?? defaultTimeoutMs, ...(run.cwd === undefined ? {} : { cwd: run.cwd }) });
  const maxOutput = run.maxOutputBytes ?? defaultMaxOutputBytes;
  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  let stderr = "";
  let overflow = false;
  child.stdout.on("data", (chunk: Buffer) => {
    stdoutBytes += chunk.length;
    if (stdoutBytes > maxOutput) {
      overflow = true;
      kill();
      return;
    }
    stdout.push(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < stderrKeptBytes) stderr += chunk.toString("utf8");
  });
  const timer = setTimeout(kill, run.timeoutMs ?? defaultTimeoutMs);
  const abort = kill;
  run.signal?.addEventListener("abort", abort);
  child.stdin.on("error", () => undefined);
  const input = run.input ?? "";
  if (typeof input === "string" || input instanceof Uint8Array) child.stdin.end(input);
  else {
    input.on("error", kill);
    input.pipe(child.stdin);
  }
  try {
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolve(code));
    });
    if (overflow) throw new GitFailed(run.args, exitCode, `output over ${maxOutput} bytes`);
    if (exitCode !== 0) throw new GitFailed(run.args, exitCode, stderr);
    return { stdout: Buffer.concat(stdout), stderr };
  } catch (error) {
    if (error instanceof GitFailed) throw error;
    throw new AppError("INTERNAL", "git could not be run", { cause: error });
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener("abort", abort);
  }
}

/** A git started by spawnGit, and how to stop it with every helper it started. */
export interface SpawnedGit {
  child: ChildProcessWithoutNullStreams;
  kill(): void;
}

/**
 * Starts git (arguments `args`, settings included) in a process group of its own, so its helpers (git-remote-https,
 * pack-objects under upload-pack), which hold its pipes, are stopped with it by `kill`. It runs under coreutils'
 * `timeout`, which kills the whole group a tenth and a second after `timeoutMs` (the caller's timer normally stops
 * it first) even when the tool-runner was killed (SIGKILL) and its timer with it: Node cannot ask for a signal at its
 * death (prctl PR_SET_PDEATHSIG), and a git in a group of its own outlives its parent (docs/repositories.md "Git on
 * the host never runs what a repository says"). `timeoutMs` null only for a git that ends when its stdin closes,
 * as it does at the tool-runner's death, and serves for as long as it is used (`cat-file --batch`).
 */
export function spawnGit(args: readonly string[], options: { env: NodeJS.ProcessEnv; timeoutMs: number | null; cwd?: string }): SpawnedGit {
  const bound = options.timeoutMs === null ? [] : ["--signal=KILL", `${Math.ceil((options.timeoutMs * 1.1) / 1000) + 1}s`, "git"];
  const child = spawn(options.timeoutMs === null ? "git" : "timeout", [...bound, ...args], { env: options.env, stdio: ["pipe", "pipe", "pipe"], detached: true, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
  return { child, kill: () => killGroup(child) };
}

/** Kills git and every helper it started (its process group); git alone when the group is gone already. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** The environment of a git run: the place, and nothing that could make git read a user's or system's config. */
export function gitEnvironment(place: GitPlace & Pick<GitRun, "secretConfig">): NodeJS.ProcessEnv {
  return {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_DIR: place.gitDir,
    ...(place.workTree === undefined ? {} : { GIT_WORK_TREE: place.workTree }),
    ...(place.indexFile === undefined ? {} : { GIT_INDEX_FILE: place.indexFile }),
    ...(place.objectDirectory === undefined ? {} : { GIT_OBJECT_DIRECTORY: place.objectDirectory }),
    ...(place.alternates === undefined || place.alternates.length === 0 ? {} : { GIT_ALTERNATE_OBJECT_DIRECTORIES: place.alternates.join(":") }),
    ...gitConfigEnvironment(place.secretConfig ?? []),
  };
}
