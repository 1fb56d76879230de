import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import { codeBaseFiles, writeCodeBaseTarGz, writeCodeBaseZip, writeTarGz, writeZip, type TarEntrySpec, type ZipEntrySpec } from "../testing/hostile-archives.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { detectArchiveFormat } from "./detect-archive-format.js";
import { readArchive, type ArchiveFormat } from "./read-archive.js";

const limits: ArchiveLimits = { maxEntries: 1000, maxTotalBytes: 64 << 20, maxEntryBytes: 16 << 20, maxRatio: 100 };

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), "ao-archive-")));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Every file readArchive hands on, with a copy of its bytes, and its summary. */
async function readAll(file: string, format: ArchiveFormat, bounds = limits, options: { strip?: number } = {}) {
  const files: { path: string; size: number; content: Buffer }[] = [];
  const summary = await readArchive(file, format, bounds, async (entry, content) => void files.push({ ...entry, content: Buffer.from(content) }), options);
  return { files, summary };
}

/** The refusal's message; fails unless it is ARCHIVE_REFUSED and no file was handed on. */
async function refusal(file: string, format: ArchiveFormat, bounds = limits): Promise<string> {
  const handed: string[] = [];
  const error = await appErrorOf(readArchive(file, format, bounds, async (entry) => void handed.push(entry.path)), dir);
  expect(error.code).toBe("ARCHIVE_REFUSED");
  expect(handed).toEqual([]);
  return error.message;
}

let serial = 0;
const archive = (format: ArchiveFormat, entries: (ZipEntrySpec & TarEntrySpec)[]) => {
  const file = path.join(dir, `archive-${(serial += 1)}.${format}`);
  return format === "zip" ? writeZip(file, entries) : writeTarGz(file, entries);
};
const bytes = (length: number, fill = "x") => Buffer.alloc(length, fill);
const codeBaseTotal = Object.values(codeBaseFiles).reduce((sum, content) => sum + content.length, 0);

describe("readArchive on good archives", () => {
  it("reads a zip made by yazl: every file's path, size and bytes, in order, folder entries counted", async () => {
    const { files, summary } = await readAll(await writeCodeBaseZip(dir), "zip");
    expect(files.map((file) => file.path)).toEqual(Object.keys(codeBaseFiles));
    for (const file of files) {
      expect(file.content.equals(codeBaseFiles[file.path] ?? Buffer.alloc(1))).toBe(true);
      expect(file.size).toBe(file.content.length);
    }
    expect(summary).toEqual({ files: 7, bytes: codeBaseTotal, folders: 2 });
  });

  it("reads a tar.gz made by node-tar from a folder: ./ dropped, folders counted, the root ./ skipped", async () => {
    const { files, summary } = await readAll(await writeCodeBaseTarGz(dir), "tar.gz");
    expect(files.map((file) => file.path).sort()).toEqual(Object.keys(codeBaseFiles).sort());
    for (const file of files) expect(file.content.equals(codeBaseFiles[file.path] ?? Buffer.alloc(1))).toBe(true);
    // src, src/lib, src/lib/deep, src/lib/deep/nested, assets
    expect(summary).toEqual({ files: 7, bytes: codeBaseTotal, folders: 5 });
  });

  it.each(["zip", "tar.gz"] as const)("strips the first names as tar --strip-components (%s), skipping what has no more", async (format) => {
    const file = await archive(format, [
      { name: "project-1.0/", type: "5", mode: 0o040755 },
      { name: "project-1.0/README.md", content: Buffer.from("# P\n") },
      { name: "project-1.0/src/index.ts", content: Buffer.from("export {};\n") },
      { name: "top.txt", content: Buffer.from("skipped\n") },
    ]);
    const { files, summary } = await readAll(file, format, limits, { strip: 1 });
    expect(files.map(({ path, size }) => ({ path, size }))).toEqual([
      { path: "README.md", size: 4 },
      { path: "src/index.ts", size: 11 },
    ]);
    expect(summary).toEqual({ files: 2, bytes: 15, folders: 0 });
  });

  it.each(["zip", "tar.gz"] as const)("reads ./ prefixes and a folder named after its files (%s)", async (format) => {
    const file = await archive(format, [
      { name: "./src/a.ts", content: Buffer.from("a") },
      { name: "./src/", type: "5", mode: 0o040755 },
    ]);
    expect((await readAll(file, format)).summary).toEqual({ files: 1, bytes: 1, folders: 1 });
  });

  it.each(["zip", "tar.gz"] as const)("lets a failure of onFile go on as it is, after the files before it (%s)", async (format) => {
    const file = await archive(format, [
      { name: "a.txt", content: Buffer.from("a") },
      { name: "b.txt", content: Buffer.from("b") },
      { name: "c.txt", content: Buffer.from("c") },
    ]);
    const seen: string[] = [];
    const failure = new Error("the store is down");
    const reading = readArchive(file, format, limits, async (entry) => {
      seen.push(entry.path);
      if (seen.length === 2) throw failure;
    });
    await expect(reading).rejects.toBe(failure);
    expect(seen).toEqual(["a.txt", "b.txt"]);
  });
});

describe("readArchive at its limits", () => {
  const threeEntries = [{ name: "a/", type: "5" as const, mode: 0o040755 }, { name: "a/b.txt", content: bytes(60) }, { name: "c.txt", content: bytes(40) }];

  it.each(["zip", "tar.gz"] as const)("accepts exactly maxEntries entries and refuses one more (%s)", async (format) => {
    const file = await archive(format, threeEntries);
    expect((await readAll(file, format, { ...limits, maxEntries: 3 })).summary).toEqual({ files: 2, bytes: 100, folders: 1 });
    expect(await refusal(file, format, { ...limits, maxEntries: 2 })).toMatch(/entries/);
  });

  it.each(["zip", "tar.gz"] as const)("accepts a file of exactly maxEntryBytes and refuses one byte more (%s)", async (format) => {
    const file = await archive(format, threeEntries);
    await readAll(file, format, { ...limits, maxEntryBytes: 60 });
    expect(await refusal(file, format, { ...limits, maxEntryBytes: 59 })).toBe('Archive refused: entry "a/b.txt" is 60 bytes; a file may have at most 59');
  });

  it.each(["zip", "tar.gz"] as const)("accepts files adding up to exactly maxTotalBytes and refuses one byte more (%s)", async (format) => {
    const file = await archive(format, threeEntries);
    await readAll(file, format, { ...limits, maxTotalBytes: 100 });
    expect(await refusal(file, format, { ...limits, maxTotalBytes: 99 })).toMatch(/entry "c.txt" makes the files add up to more than 99 bytes/);
  });

  it("checks a zip entry's ratio only past 1 MiB inflated: exactly 1 MiB of zeros passes, one byte more is a bomb", async () => {
    const accepted = await archive("zip", [{ name: "zeros.bin", content: Buffer.alloc(1 << 20) }]);
    expect((await readAll(accepted, "zip", { ...limits, maxRatio: 2 })).summary.bytes).toBe(1 << 20);
    const refused = await archive("zip", [{ name: "zeros.bin", content: Buffer.alloc((1 << 20) + 1) }]);
    expect(await refusal(refused, "zip", { ...limits, maxRatio: 2 })).toMatch(/entry "zeros.bin" inflates more than 2 times its compressed size/);
  });

  it("checks a tar.gz's whole stream ratio past 1 MiB inflated", async () => {
    const small = await archive("tar.gz", [{ name: "zeros.bin", content: Buffer.alloc(512 << 10) }]);
    await readAll(small, "tar.gz", { ...limits, maxRatio: 2 });
    const large = await archive("tar.gz", [{ name: "zeros.bin", content: Buffer.alloc(4 << 20) }]);
    expect(await refusal(large, "tar.gz")).toMatch(/it inflates more than 100 times its compressed size/);
  });
});

describe("detectArchiveFormat", () => {
  it("knows a zip and a gzip by their first bytes, and nothing else", async () => {
    expect(await detectArchiveFormat(await writeCodeBaseZip(dir))).toBe("zip");
    expect(await detectArchiveFormat(await writeZip(path.join(dir, "empty.zip"), []))).toBe("zip");
    expect(await detectArchiveFormat(await writeCodeBaseTarGz(dir))).toBe("tar.gz");
    await writeFile(path.join(dir, "notes.txt"), "PK is not enough\n");
    expect(await detectArchiveFormat(path.join(dir, "notes.txt"))).toBeUndefined();
    await writeFile(path.join(dir, "nothing"), "");
    expect(await detectArchiveFormat(path.join(dir, "nothing"))).toBeUndefined();
    await writeFile(path.join(dir, "plain.gz"), gzipSync("not a tar"));
    expect(await detectArchiveFormat(path.join(dir, "plain.gz"))).toBe("tar.gz");
  });
});
