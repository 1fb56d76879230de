import { randomUUID } from "node:crypto";
import { link, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { AppError, parseJson } from "@agent-orchestrator/shared";
import { z } from "zod";
import { errnoCode } from "../sandbox/sandbox-error.js";

/** Timing of a lock file. */
export interface FileLockOptions {
  /** a lock older than this is taken over; far above the milliseconds a holder keeps it */
  staleMs?: number;
  /** how long to wait for the lock before giving up with BUSY; longer than `staleMs`, so a lock left on
   * another host by a dead holder is taken over before waiters give up */
  timeoutMs?: number;
}

const LockBody = z.object({ token: z.string(), pid: z.number().int(), host: z.string() });
type LockBody = z.infer<typeof LockBody>;

/**
 * Runs `work` while holding a lock file, so processes sharing a folder (replicas on one output volume)
 * take turns. The lock is created by linking a draft that already names its holder: `link` fails if the
 * lock exists and is atomic on a local filesystem, and the lock is never seen empty. A lock left by a
 * holder that died is taken over: at once when its pid is gone on this host, else once older than
 * `staleMs`.
 */
export async function withFileLock<T>(lockPath: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const token = await acquire(lockPath, options.staleMs ?? 10_000, options.timeoutMs ?? 15_000);
  try {
    return await work();
  } finally {
    await release(lockPath, token);
  }
}

async function acquire(lockPath: string, staleMs: number, timeoutMs: number): Promise<string> {
  const body: LockBody = { token: randomUUID(), pid: process.pid, host: hostname() };
  // The lock appears with its holder already written in it: the body goes to a draft first, and the draft
  // is linked to the lock's name (atomic; EEXIST while someone holds it). A holder killed between creating
  // the lock and writing it would otherwise leave an empty lock that blocks everyone until `staleMs`.
  const draft = `${lockPath}.${body.token}.draft`;
  try {
    await writeFile(draft, JSON.stringify(body), { flag: "wx" });
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await link(draft, lockPath);
        return body.token;
      } catch (error) {
        if (errnoCode(error) !== "EEXIST") throw error;
      }
      if (await takeOverIfStale(lockPath, staleMs)) continue;
      if (Date.now() > deadline) throw new AppError("BUSY", "The session manifest is busy; try again", { detail: { lockPath } });
      // jittered backoff, capped low: holders keep the lock for a few milliseconds
      const base = Math.min(2 ** attempt, 25);
      await sleep(base + Math.random() * base);
    }
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/**
 * Moves a stale lock aside. Only one contender can rename a given file; if the file renamed turns out to be
 * a fresh lock (another contender broke the stale one and locked first), it is linked back, which cannot
 * overwrite a lock created meanwhile. Returns true when the caller should try to lock again at once.
 */
async function takeOverIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  const seen = await stat(lockPath).catch(() => undefined);
  if (!seen) return true;
  const holder = await readHolder(lockPath);
  const holderDead = holder !== undefined && holder.host === hostname() && !isAlive(holder.pid);
  if (!holderDead && Date.now() - seen.mtimeMs < staleMs) return false;
  const aside = `${lockPath}.${randomUUID()}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return true;
    throw error;
  }
  const moved = await stat(aside);
  if (moved.ino !== seen.ino || moved.dev !== seen.dev) await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  return true;
}

async function release(lockPath: string, token: string): Promise<void> {
  // only remove our own lock: if it was taken over as stale, the file is someone else's now
  if ((await readHolder(lockPath))?.token === token) await unlink(lockPath).catch(() => undefined);
}

async function readHolder(lockPath: string): Promise<LockBody | undefined> {
  const text = await readFile(lockPath, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = parseJson(text);
  const body = parsed.ok ? LockBody.safeParse(parsed.value) : undefined;
  return body?.success ? body.data : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return errnoCode(error) === "EPERM";
  }
}
