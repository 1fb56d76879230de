import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { CacheFolder } from "./cache-folder.js";

const logger = createLogger("cache-folder-test", "silent");
// no heartbeat during a test: each sweep is called when the test wants it
const timing = { heartbeatMs: 60 * 60_000 };
const removals: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  await Promise.all(removals.splice(0).map((remove) => remove()));
});

async function root(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), "ao-cache-root-"));
  removals.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

async function claim(at: string): Promise<CacheFolder> {
  const claimed = await CacheFolder.claim(at, logger, timing);
  removals.push(() => claimed.close());
  await claimed.sweep();
  return claimed;
}

/** A folder as a tool-runner that is process `owner` (on this machine, or in another pid namespace) leaves it. */
async function leftFolder(at: string, name: string, owner: { pid: number; started: string; namespace?: string } | undefined): Promise<string> {
  const folder = path.join(at, name);
  await mkdir(path.join(folder, "p1.g1", "checkouts"), { recursive: true });
  await writeFile(path.join(folder, "p1.g1", "pack"), "objects");
  if (owner) {
    const boot = (await readFile("/proc/sys/kernel/random/boot_id", "utf8")).trim();
    await writeFile(path.join(folder, "owner.json"), JSON.stringify({ pid: owner.pid, boot, namespace: owner.namespace ?? (await readlink("/proc/self/ns/pid")), started: owner.started }));
  }
  return folder;
}

/** A process running here, its pid and start time, and how to kill it with SIGKILL. */
async function runningProcess(): Promise<{ pid: number; started: string; kill(): Promise<void> }> {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  await once(child, "spawn");
  const pid = child.pid ?? 0;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  };
  removals.push(kill);
  return { pid, started, kill };
}

async function backdate(file: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms);
  await utimes(file, then, then);
}

describe("a tool-runner's cache folder", () => {
  it("removes, at start, the folder a tool-runner killed with SIGKILL left, and keeps the one of a replica that runs", async () => {
    const at = await root();
    const dead = await runningProcess();
    const alive = await runningProcess();
    const killed = await leftFolder(at, "repositories-Ab12Cd", dead);
    const running = await leftFolder(at, "repositories-Ef34Gh", alive);
    await dead.kill();
    const own = await claim(at);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(own.folder)).toBe(true);
  });

  it("does not take a process that got a dead owner's pid again for the owner", async () => {
    const at = await root();
    const other = await runningProcess();
    const reused = await leftFolder(at, "repositories-Ij56Kl", { pid: other.pid, started: "1" });
    await claim(at);
    expect(existsSync(reused)).toBe(false);
  });

  it("keeps the folders of replicas sharing the root while they run, and removes one's when it stops", async () => {
    const at = await root();
    const first = await claim(at);
    const second = await claim(at);
    await first.sweep();
    expect(existsSync(second.folder)).toBe(true);
    await second.close();
    expect(existsSync(second.folder)).toBe(false);
    expect(existsSync(first.folder)).toBe(true);
  });

  it("removes the folder of an owner in another pid namespace (a container sharing the volume) once it stops marking it alive", async () => {
    const at = await root();
    const elsewhere = await leftFolder(at, "repositories-Mn78Op", { pid: 1, started: "5", namespace: "pid:[1]" });
    const own = await claim(at);
    expect(existsSync(elsewhere)).toBe(true);
    await backdate(path.join(elsewhere, "owner.json"), 6 * 60_000);
    await own.sweep();
    expect(existsSync(elsewhere)).toBe(false);
  });

  it("removes a folder made before owners marked theirs once nothing changed in it for a day", async () => {
    const at = await root();
    const unmarked = await leftFolder(at, "repositories-Qr90St", undefined);
    const own = await claim(at);
    expect(existsSync(unmarked)).toBe(true);
    for (const file of [unmarked, path.join(unmarked, "p1.g1")]) await backdate(file, 25 * 60 * 60_000);
    await own.sweep();
    expect(existsSync(unmarked)).toBe(false);
  });

  it("leaves what is not a tool-runner's cache folder in a shared root (the system's temporary folder) alone, and finishes a removal a dead replica began", async () => {
    const at = await root();
    const foreign = await leftFolder(at, "repositories-of-someone-else", undefined);
    await backdate(foreign, 25 * 60 * 60_000);
    await backdate(path.join(foreign, "p1.g1"), 25 * 60 * 60_000);
    await mkdir(path.join(at, "removing-repositories-1234", "p1.g1"), { recursive: true });
    await claim(at);
    expect((await readdir(at)).filter((name) => !/^repositories-[A-Za-z0-9]{6}$/.test(name))).toEqual(["repositories-of-someone-else"]);
  });
});
