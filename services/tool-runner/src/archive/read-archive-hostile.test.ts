import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import * as hostile from "../testing/hostile-archives.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { readArchive, type ArchiveFormat } from "./read-archive.js";

const limits: ArchiveLimits = { maxEntries: 2000, maxTotalBytes: 64 << 20, maxEntryBytes: 16 << 20, maxRatio: 100 };

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), "ao-hostile-archive-")));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The refusal's message; fails unless it is ARCHIVE_REFUSED, names no host path, and no file was handed on. */
async function refusal(file: string, format: ArchiveFormat, bounds = limits, options: { strip?: number } = {}): Promise<string> {
  const handed: string[] = [];
  const error = await appErrorOf(readArchive(file, format, bounds, async (entry) => void handed.push(entry.path), options), dir);
  expect(error.code).toBe("ARCHIVE_REFUSED");
  expect(handed).toEqual([]);
  return error.message;
}

let serial = 0;
const named = (format: ArchiveFormat) => path.join(dir, `hostile-${(serial += 1)}.${format}`);

describe("readArchive refuses a hostile archive whole, handing nothing on", () => {
  it.each([
    ["zip-slip in a zip", hostile.zipSlip, "zip", 'entry "../evil.txt" has a .. in its path'],
    ["zip-slip in a tar.gz", hostile.tarSlip, "tar.gz", 'entry "../evil.txt" has a .. in its path'],
    ["an absolute path in a zip", hostile.zipAbsolute, "zip", 'entry "/etc/evil.txt" is an absolute path'],
    ["an absolute path in a tar.gz", hostile.tarAbsolute, "tar.gz", 'entry "/etc/evil.txt" is an absolute path'],
    ["a symlink in a zip", hostile.zipSymlink, "zip", 'entry "passwd" is a symbolic link'],
    ["a symlink in a tar.gz", hostile.tarSymlink, "tar.gz", 'entry "passwd" is a symbolic link'],
    ["a hard link in a tar.gz", hostile.tarHardLink, "tar.gz", 'entry "passwd" is a hard link'],
    ["a character device in a tar.gz", hostile.tarCharDevice, "tar.gz", 'entry "null" is a character device'],
    ["a FIFO in a tar.gz", hostile.tarFifo, "tar.gz", 'entry "pipe" is a FIFO'],
    ["a terminal escape in a zip name", hostile.zipControlName, "zip", 'entry "evil\\u001b[2J.txt" has a name with a control or bidi character'],
    ["a bell in a tar.gz name", hostile.tarControlName, "tar.gz", 'entry "bell\\u0007.txt" has a name with a control or bidi character'],
    ["a zip inflating to 10 GiB (overlapping entries)", hostile.zipBomb, "zip", 'entry "zeros/0.bin" inflates more than 100 times its compressed size'],
    ["a zip whose headers lie about its sizes", hostile.zipLyingSizes, "zip", 'entry "small.txt" inflates to more bytes than its header declares'],
    ["a zip of 100,000 entries", hostile.zipManyEntries, "zip", "it holds 100000 entries; an archive may have at most 2000"],
    ["a tar.gz of 100,000 entries", hostile.tarManyEntries, "tar.gz", "it holds more than 2000 entries"],
    ["a tar.gz bomb of 200 MB of zeros", hostile.tarGzBomb, "tar.gz", 'entry "zeros.bin" is 200000000 bytes; a file may have at most 16777216'],
  ] as const)("%s", async (_attack, write, format, reason) => {
    const message = await refusal(await write(dir), format);
    expect(message).toContain(reason);
    expect(message).not.toMatch(/[\u0000-\u001f]/);
  });

  it("refuses the 10 GiB zip by its declared total, before inflating, when the ratio alone would let it pass", async () => {
    const message = await refusal(await hostile.zipBomb(dir), "zip", { ...limits, maxRatio: 10_000, maxTotalBytes: 1 << 30 });
    expect(message).toContain("makes the files add up to more than 1073741824 bytes");
  });

  it("stops inflating a gzip bomb by its stream ratio when its declared size is allowed", async () => {
    const roomy = { ...limits, maxEntryBytes: 512 << 20, maxTotalBytes: 512 << 20 };
    expect(await refusal(await hostile.tarGzBomb(dir), "tar.gz", roomy)).toContain("it inflates more than 100 times its compressed size");
  });

  it.each(["zip", "tar.gz"] as const)("refuses a name that is not valid UTF-8 (%s)", async (format) => {
    const entries = [{ name: Buffer.from([0x66, 0xff, 0xfe, 0x2e, 0x74]), content: Buffer.from("x") }];
    const file = format === "zip" ? await hostile.writeZip(named(format), entries) : await hostile.writeTarGz(named(format), entries);
    expect(await refusal(file, format)).toContain("has a name that is not valid UTF-8");
  });

  it.each(["zip", "tar.gz"] as const)("refuses a path twice, and a path that is a file and a folder, in either order (%s)", async (format) => {
    const write = (entries: hostile.ZipEntrySpec[]) => (format === "zip" ? hostile.writeZip(named(format), entries) : hostile.writeTarGz(named(format), entries));
    const file = { name: "a", content: Buffer.from("x") };
    expect(await refusal(await write([file, { name: "a", content: Buffer.from("y") }]), format)).toContain('entry "a" appears twice');
    expect(await refusal(await write([file, { name: "a/b", content: Buffer.from("y") }]), format)).toContain('entry "a/b" lies below a path that is also a file');
    expect(await refusal(await write([{ name: "a/b", content: Buffer.from("y") }, file]), format)).toContain('entry "a" is both a file and a folder');
  });

  it("refuses two paths equal but for case or Unicode normalisation, naming both (docs/security.md case 217)", async () => {
    expect(await refusal(await hostile.zipCaseClash(dir), "zip")).toBe(
      'Archive refused: entry "readme.md" clashes with "README.md": two paths may not differ only by case or Unicode normalisation',
    );
    expect(await refusal(await hostile.tarNormalisationClash(dir), "tar.gz")).toContain('entry "docs/cafe\u0301.md" clashes with "docs/caf\u00e9.md"');
    // folders too: `Docs/b.md` and `docs/a.md` would share one folder there
    const folders = await hostile.writeZip(named("zip"), [
      { name: "docs/a.md", content: Buffer.from("a") },
      { name: "Docs/b.md", content: Buffer.from("b") },
    ]);
    expect(await refusal(folders, "zip")).toContain('entry "Docs/b.md" is in the folder "Docs", which clashes with "docs"');
  });

  it("takes paths that differ by more than case, and a folder entry with the files below it", async () => {
    const file = await hostile.writeZip(named("zip"), [
      { name: "docs/", mode: 0o040755 },
      { name: "docs/a.md", content: Buffer.from("a") },
      { name: "docs/ab.md", content: Buffer.from("b") },
      { name: "src/A.ts", content: Buffer.from("c") },
    ]);
    const handed: string[] = [];
    await readArchive(file, "zip", limits, async (entry) => void handed.push(entry.path));
    expect(handed).toEqual(["docs/a.md", "docs/ab.md", "src/A.ts"]);
  });

  it("refuses a path that a strip makes twice", async () => {
    const file = await hostile.writeTarGz(named("tar.gz"), [
      { name: "one/x.txt", content: Buffer.from("1") },
      { name: "two/x.txt", content: Buffer.from("2") },
    ]);
    expect(await refusal(file, "tar.gz", limits, { strip: 1 })).toBe('Archive refused: entry "two/x.txt" appears twice in the archive');
  });

  it("refuses a zip entry of another unix type (a FIFO), a backslash and a drive letter", async () => {
    expect(await refusal(await hostile.writeZip(named("zip"), [{ name: "pipe", mode: 0o010644 }]), "zip")).toContain("is a device, a FIFO or a socket");
    expect(await refusal(await hostile.writeZip(named("zip"), [{ name: "src\\x.ts" }]), "zip")).toContain("has a backslash");
    expect(await refusal(await hostile.writeZip(named("zip"), [{ name: "C:\\x.ts" }]), "zip")).toContain("is an absolute path");
  });

  it("refuses a gzip inside the gzip, and files that are no archive, naming no host path", async () => {
    const tar = path.join(dir, "inner.tar.gz");
    await hostile.writeTarGz(tar, [{ name: "a.txt", content: Buffer.from("a") }]);
    const nested = path.join(dir, "nested.tar.gz");
    await writeFile(nested, gzipSync(await readFile(tar)));
    expect(await refusal(nested, "tar.gz")).toContain("holds another compressed stream");

    const junk = path.join(dir, "junk.bin");
    await writeFile(junk, "not an archive at all, but long enough to be read as one.".repeat(20));
    expect(await refusal(junk, "zip")).toContain("it is not a zip archive that can be read");
    expect(await refusal(junk, "tar.gz")).toContain("it is not a gzip stream that can be read");
    await writeFile(junk, gzipSync(Buffer.from("plain text, no tar headers here. ".repeat(40))));
    expect(await refusal(junk, "tar.gz")).toContain("it is not a tar archive that can be read");
  });
});
