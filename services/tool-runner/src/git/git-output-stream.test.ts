import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitFailed } from "./git-command.js";
import { blobStream, gitOutputStream } from "./git-output-stream.js";

let folder: string;
let gitDir: string;
let blob: string;
const content = Buffer.alloc(1 << 20, "abcdefgh");

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "ao-git-stream-"));
  gitDir = path.join(folder, "repository.git");
  execFileSync("git", ["init", "-q", "--bare", gitDir]);
  blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { env: { PATH: process.env["PATH"] ?? "", GIT_DIR: gitDir }, input: content, encoding: "utf8" }).trim();
});

afterAll(() => rm(folder, { recursive: true, force: true }));

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe("gitOutputStream", () => {
  it("yields a blob's bytes as git prints them, in several chunks", async () => {
    const chunks = await collect(blobStream({ gitDir }, blob));
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("fails with GitFailed, whose stderr is for the log, when git fails", async () => {
    const failed = await collect(blobStream({ gitDir }, "0".repeat(40))).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(GitFailed);
    expect((failed as GitFailed).exitCode).not.toBe(0);
  });

  it("refuses what is not an object id before git runs", () => {
    expect(() => blobStream({ gitDir }, "HEAD --output=/tmp/x")).toThrow("Not an object id");
  });

  it("lets a reader stop early", async () => {
    for await (const chunk of gitOutputStream({ gitDir }, ["cat-file", "blob", blob])) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
  });
});
