import type { Readable } from "node:stream";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { spawnGit } from "../git/git-command.js";
import { GitFailed, gitEnvironment, hardenedSettings } from "../git/index.js";

/** One run of git's server side on a repository the host made (served-repository.ts). */
export interface GitServiceRun {
  service: "upload-pack" | "receive-pack";
  gitDir: string;
  /** only the refs and capabilities (the answer to `info/refs`) */
  advertise?: boolean;
  /** the client's `Git-Protocol` header, as git-http-backend passes it (GIT_PROTOCOL) */
  protocol?: string;
  /** more settings, after the hardened ones */
  settings?: ReadonlyArray<readonly [string, string]>;
  /** the request body */
  input?: Buffer | Readable;
  timeoutMs: number;
}

/** A running git service: its output as it comes, and its end. */
export interface GitServiceProcess {
  stdout: Readable;
  /** resolves when git exits with 0; GitFailed otherwise (its stderr is for the log, never for a client) */
  finished: Promise<void>;
  /** what git wrote on stderr so far (its first 16 KiB): for the log and for a refusal's reason, never shown whole */
  stderr(): string;
  kill(): void;
}

const stderrKeptBytes = 16 * 1024;

/**
 * Starts `git upload-pack` or `git receive-pack` with `--stateless-rpc`, as git-http-backend does, hardened like
 * every git the host runs (git/git-command.ts: no hook, no config of the user's or the system's, no program a
 * repository names) and in the environment of `gitEnvironment`, so its output can be streamed as it is made
 * (a clone's pack is not held in memory). `kill`, the timeout and a body that fails stop git with its helpers
 * (upload-pack's pack-objects) as one process group (git/git-command.ts spawnGit).
 */
export function startGitService(run: GitServiceRun): GitServiceProcess {
  const settings = [...hardenedSettings, ["protocol.allow", "never"] as const, ...(run.settings ?? [])];
  const args = [...settings.flatMap(([key, value]) => ["-c", `${key}=${value}`]), run.service, "--stateless-rpc", ...(run.advertise === true ? ["--advertise-refs"] : []), run.gitDir];
  const env = { ...gitEnvironment({ gitDir: run.gitDir }), ...(run.protocol === undefined || run.protocol === "" ? {} : { GIT_PROTOCOL: run.protocol }) };
  const { child, kill } = spawnGit(args, { env, timeoutMs: run.timeoutMs });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < stderrKeptBytes) stderr += chunk.toString("utf8");
  });
  const timer = setTimeout(kill, run.timeoutMs);
  child.stdin.on("error", () => undefined);
  const input = run.input ?? Buffer.alloc(0);
  if (Buffer.isBuffer(input)) child.stdin.end(input);
  else {
    input.on("error", kill);
    input.pipe(child.stdin);
  }
  const finished = new Promise<void>((resolve, reject) => {
    child.once("error", (error) => reject(new AppError("INTERNAL", "git could not be run", { cause: error })));
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new GitFailed([run.service], code, stderr));
    });
  });
  return { stdout: child.stdout, finished, stderr: () => stderr, kill };
}

/** Runs a git service to its end and returns all it printed (an advertisement, a push's report: small). */
export async function gitServiceOutput(run: GitServiceRun, maxBytes: number): Promise<{ stdout: Buffer; stderr: string }> {
  const running = startGitService(run);
  const chunks: Buffer[] = [];
  let bytes = 0;
  running.stdout.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) running.kill();
    else chunks.push(chunk);
  });
  try {
    await running.finished;
  } catch (error) {
    if (bytes > maxBytes) throw new AppError("INTERNAL", `git ${run.service} printed more than ${maxBytes} bytes`, { cause: error });
    throw error;
  }
  return { stdout: Buffer.concat(chunks), stderr: running.stderr() };
}
