import { AppError } from "@agent-orchestrator/shared/runtime";
import { GitFailed, gitEnvironment, hardenedSettings, spawnGit, type GitPlace } from "./git-command.js";

const stderrKeptBytes = 16 * 1024;

/**
 * What a git run prints, chunk by chunk as it comes (hardened like every git the host runs, git-command.ts): a
 * blob downloaded (`cat-file blob`) or a branch archived (`archive`) is never held whole in memory. GitFailed when
 * git exits with an error (its stderr is for the log, never for a client); a reader that stops early stops git with
 * its helpers. git is stopped `timeoutMs` after it started, a reader's pauses included (a slow store), even when the
 * tool-runner died meanwhile (spawnGit).
 */
export async function* gitOutputStream(place: GitPlace, args: readonly string[], timeoutMs: number): AsyncGenerator<Buffer> {
  const { child, kill } = spawnGit([...hardenedSettings.flatMap(([key, value]) => ["-c", `${key}=${value}`]), ...args], { env: gitEnvironment(place), timeoutMs });
  const timer = setTimeout(kill, timeoutMs);
  child.stdin.on("error", () => undefined);
  child.stdin.end();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < stderrKeptBytes) stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", (error) => reject(new AppError("INTERNAL", "git could not be run", { cause: error })));
    child.once("close", (code) => resolve(code));
  });
  // a reader that stops early leaves no unhandled rejection behind
  exited.catch(() => undefined);
  try {
    for await (const chunk of child.stdout) yield chunk as Buffer;
    const code = await exited;
    if (code !== 0) throw new GitFailed([args[0] ?? ""], code, stderr);
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) kill();
  }
}

/** The content of blob `id`, chunk by chunk; the caller makes sure the object is there first (its pack fetched). */
export function blobStream(place: GitPlace, id: string, timeoutMs: number): AsyncGenerator<Buffer> {
  if (!/^[0-9a-f]{40}$/.test(id)) throw new AppError("INTERNAL", `Not an object id: ${id.slice(0, 60)}`);
  return gitOutputStream(place, ["cat-file", "blob", id], timeoutMs);
}
