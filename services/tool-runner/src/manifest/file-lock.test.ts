import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { withFileLock } from "./file-lock.js";

/** When set, the next write of a lock's draft stops half-way, as if its process were killed there. */
const crash = vi.hoisted(() => ({ onDraft: false }));
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...real,
    writeFile: async (...args: Parameters<typeof real.writeFile>) => {
      if (crash.onDraft && String(args[0]).endsWith(".draft")) {
        crash.onDraft = false;
        await real.writeFile(args[0], "", { flag: "wx" });
        throw new Error("killed while writing");
      }
      return real.writeFile(...args);
    },
  };
});

let folder: string;
let lockPath: string;
beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "ao-lock-"));
  lockPath = path.join(folder, "x.lock");
});
afterEach(() => rm(folder, { recursive: true, force: true }));

function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

describe("withFileLock", () => {
  it("lets one holder in at a time and removes the lock afterwards", async () => {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withFileLock(lockPath, async () => {
          inside++;
          most = Math.max(most, inside);
          await sleep(2);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(await readdir(folder)).toEqual([]);
  });

  it("releases the lock when the work throws", async () => {
    await expect(withFileLock(lockPath, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await readdir(folder)).toEqual([]);
  });

  it("takes over at once a lock whose holder died on this host", async () => {
    await writeFile(lockPath, JSON.stringify({ token: "old", pid: deadPid(), host: hostname() }));
    const started = Date.now();
    await withFileLock(lockPath, async () => undefined, { staleMs: 60_000, timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await readdir(folder)).toEqual([]);
  });

  it("takes over a lock from another host once it is older than staleMs", async () => {
    await writeFile(lockPath, JSON.stringify({ token: "old", pid: 1, host: "elsewhere" }));
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath, old, old);
    await withFileLock(lockPath, async () => undefined, { staleMs: 10_000, timeoutMs: 2_000 });
    expect(await readdir(folder)).toEqual([]);
  });

  it("waits for a live lock and gives up with BUSY at the timeout", async () => {
    await writeFile(lockPath, JSON.stringify({ token: "live", pid: process.pid, host: hostname() }));
    await expect(withFileLock(lockPath, async () => undefined, { staleMs: 60_000, timeoutMs: 200 })).rejects.toMatchObject({
      code: "BUSY",
    });
  });

  it("leaves no lock when its holder dies while writing itself into it (a crash there blocked everyone until staleMs)", async () => {
    crash.onDraft = true;
    await expect(withFileLock(lockPath, async () => undefined)).rejects.toThrow("killed while writing");
    expect(await readdir(folder)).toEqual([]);
    const started = Date.now();
    await withFileLock(lockPath, async () => undefined, { staleMs: 60_000, timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("treats a half-written lock file as live until it is stale", async () => {
    await writeFile(lockPath, "");
    await expect(withFileLock(lockPath, async () => undefined, { staleMs: 60_000, timeoutMs: 100 })).rejects.toMatchObject({
      code: "BUSY",
    });
    const old = new Date(Date.now() - 120_000);
    await utimes(lockPath, old, old);
    await withFileLock(lockPath, async () => undefined, { staleMs: 60_000, timeoutMs: 1_000 });
  });
});
