import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitFailed } from "./git-command.js";
import { blobStream, gitOutputStream } from "./git-output-stream.js";

let folder: string;
let gitDir: string;
let blob: string;
const content = Buffer.alloc(1 << 20, "abcdefgh");
const timeoutMs = 60_000;
// a git whose helper (a shell its alias starts) prints its pid and waits
const holding = ["-c", "alias.hold=!echo $$; exec sleep 300", "hold"];

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "ao-git-stream-"));
  gitDir = path.join(folder, "repository.git");
  execFileSync("git", ["init", "-q", "--bare", gitDir]);
  blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { env: { PATH: process.env["PATH"] ?? "", GIT_DIR: gitDir }, input: content, encoding: "utf8" }).trim();
});

afterAll(() => rm(folder, { recursive: true, force: true }));

/** Whether process `pid` ends within a while (a zombie nobody reaped yet runs no more). */
async function stopped(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 200; tries += 1) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
    if (stat === undefined || /^\d+ \(.*\) Z/s.test(stat)) return true;
    await sleep(50);
  }
  return false;
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe("gitOutputStream", () => {
  it("yields a blob's bytes as git prints them, in several chunks", async () => {
    const chunks = await collect(blobStream({ gitDir }, blob, timeoutMs));
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("fails with GitFailed, whose stderr is for the log, when git fails", async () => {
    const failed = await collect(blobStream({ gitDir }, "0".repeat(40), timeoutMs)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(GitFailed);
    expect((failed as GitFailed).exitCode).not.toBe(0);
  });

  it("refuses what is not an object id before git runs", () => {
    expect(() => blobStream({ gitDir }, "HEAD --output=/tmp/x", timeoutMs)).toThrow("Not an object id");
  });

  it("lets a reader stop early", async () => {
    for await (const chunk of gitOutputStream({ gitDir }, ["cat-file", "blob", blob], timeoutMs)) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
  });

  it("stops git's helpers with it when a reader stops early", async () => {
    let helper = 0;
    for await (const chunk of gitOutputStream({ gitDir }, holding, timeoutMs)) {
      helper = Number(chunk.toString("utf8").trim());
      break;
    }
    expect(helper).toBeGreaterThan(0);
    expect(await stopped(helper)).toBe(true);
  });

  it("stops git with its helpers past its time, even while a reader waits for more (a store that hangs)", async () => {
    let helper = 0;
    const failed = await (async () => {
      for await (const chunk of gitOutputStream({ gitDir }, holding, 300)) helper = Number(chunk.toString("utf8").trim());
    })().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(GitFailed);
    expect((failed as GitFailed).exitCode).toBe(null);
    expect(await stopped(helper)).toBe(true);
  });
});
