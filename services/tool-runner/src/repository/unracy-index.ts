import { utimes } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

// past the second's boundary by this much: the kernel stamps files from a clock that may lag the real one by a tick
const marginMs = 20;

/**
 * A checkout written faster than this is not worth the wait (half a second on average): git hashes its racy files
 * again in about the time it took to write them.
 */
export const unracyWorthMs = 250;

/**
 * Makes a fresh checkout's index not "racily clean" (git's Documentation/technical/racy-git.txt): git trusts an
 * entry's stat data only when the file's mtime is older than the index file's, in whole seconds, so every file
 * written in the second the index was written is hashed again by each git that reads it until one rewrites the
 * index (every file when the checkout took under a second, 4 to 5 s of a new chat's first `git status` on 1 GB).
 * Git itself leaves it so. Here, once the clock has passed the second of the checkout's last write (a wait under a
 * second, once per checkout), the index's mtime is set to now, which is what writing it again now would give.
 * Call it only while nothing but the host's git has written the files since git took their stat data (a checkout
 * before any command runs in it); a file changed in the index's new second stays racy, so git checks it.
 */
export async function unracyIndex(indexFile: string, now: () => number = Date.now): Promise<void> {
  const written = now();
  const next = (Math.floor(written / 1000) + 1) * 1000 + marginMs;
  await sleep(next - written);
  const at = new Date(Math.max(now(), next));
  await utimes(indexFile, at, at);
}
