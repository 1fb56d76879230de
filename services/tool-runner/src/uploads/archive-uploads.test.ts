import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { putObjectPaced } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArchiveLimits } from "../archive/index.js";
import { StagedUploads } from "../store/staged-uploads.js";
import { openTestFileStore, type TestFileStore } from "../testing/file-store-fixture.js";
import * as hostile from "../testing/hostile-archives.js";
import { importArchive } from "./archive-import.js";
import { putSource } from "./source-upload.js";

// An archive becomes a code snapshot or imported files only when every entry passes, and a refused archive
// leaves nothing behind (docs/uploads.md "A code snapshot", docs/security.md "Uploads and archives").
let store: TestFileStore;
let staged: StagedUploads;
let dir: string;
const limits: ArchiveLimits = { maxEntries: 20_000, maxTotalBytes: 256 << 20, maxEntryBytes: 16 << 20, maxRatio: 200 };
const author = { user: "alice" };
const project = (id: string) => ({ kind: "project" as const, id });
const writablePath = async (_space: unknown, input: string) => input;

beforeAll(async () => {
  store = await openTestFileStore();
  staged = await StagedUploads.open(store.connection.jetstream(), { subjectPrefix: store.prefix, replicas: 1 });
  dir = await mkdtemp(path.join(tmpdir(), "ao-archive-uploads-"));
});

afterAll(async () => {
  await staged.close();
  await (await store.connection.jetstreamManager()).streams.delete(`OBJ_${jetStreamNames(store.prefix).fileUploadsStore}`).catch(() => undefined);
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** Stages a file as the gateway would, returning the staged name. */
async function stage(file: string): Promise<string> {
  const uploads = await store.connection.jetstream().views.os(jetStreamNames(store.prefix).fileUploadsStore);
  const name = `u${Math.random().toString(36).slice(2)}`;
  const content = await readFile(file);
  await putObjectPaced(() => store.connection.flush(), uploads, name, (async function* () {
    yield content;
  })());
  return name;
}

/** How many contents the store holds: a refused archive must not add one. */
async function contents(): Promise<number> {
  const os = await store.connection.jetstream().views.os(jetStreamNames(store.prefix).fileContentsStore);
  return (await os.list()).filter((info) => !info.deleted).length;
}

describe("a code snapshot from an archive", () => {
  it("takes a zip of a code base, leaving out protected names, and replaces it whole with a tar.gz", async () => {
    const zip = await putSource({ files: store.files, staged, limits, now: () => new Date() }, { project_id: "p1", staged: await stage(await hostile.writeCodeBaseZip(dir)), strip: 0, author });
    expect(zip.success).toBe(true);
    if (!zip.success) return;
    expect(zip.source).toMatchObject({ revision: 1, files: 6, uploaded_by: "alice" });
    expect(zip.skipped).toEqual([{ path: ".env", reason: expect.stringMatching(/protected/) }]);
    const loaded = await store.files.sources.current("p1");
    expect([...(loaded?.files.keys() ?? [])].sort()).toEqual(["README.md", "assets/logo.bin", "empty.txt", "package.json", "src/index.ts", "src/lib/deep/nested/util.ts"]);
    const index = loaded?.files.get("src/index.ts");
    expect(Buffer.from(await store.files.content(index?.sha256 ?? "")).toString()).toBe(hostile.codeBaseFiles["src/index.ts"]?.toString());

    const tar = await putSource({ files: store.files, staged, limits, now: () => new Date() }, { project_id: "p1", staged: await stage(await hostile.writeCodeBaseTarGz(dir)), strip: 0, author });
    expect(tar).toMatchObject({ success: true, source: { revision: 2, files: 6 } });
  });

  it("leaves out BMAD's places and paths where the project has its own file", async () => {
    await store.files.write(project("p2"), "README.md", "# Our own readme\n", author);
    const file = await hostile.writeZip(path.join(dir, "with-bmad.zip"), [
      { name: "README.md", content: Buffer.from("theirs") },
      { name: "_bmad/bmm/config.yaml", content: Buffer.from("x: 1") },
      { name: "_bmad-output/brief.md", content: Buffer.from("# Brief") },
      { name: "src/app.ts", content: Buffer.from("app") },
    ]);
    const reply = await putSource({ files: store.files, staged, limits, now: () => new Date() }, { project_id: "p2", staged: await stage(file), strip: 0, author });
    expect(reply).toMatchObject({ success: true, source: { files: 1 } });
    if (!reply.success) return;
    expect(reply.skipped.map((entry) => entry.path).sort()).toEqual(["README.md", "_bmad-output/brief.md", "_bmad/bmm/config.yaml"]);
  });

  const refusals: Array<[string, (dir: string) => Promise<string>, RegExp]> = [
    ["zip-slip in a zip", hostile.zipSlip, /\.\./],
    ["zip-slip in a tar.gz", hostile.tarSlip, /\.\./],
    ["an absolute path in a zip", hostile.zipAbsolute, /absolute/],
    ["an absolute path in a tar.gz", hostile.tarAbsolute, /absolute/],
    ["a symlink in a zip", hostile.zipSymlink, /link/],
    ["a symlink in a tar.gz", hostile.tarSymlink, /link/],
    ["a hard link in a tar.gz", hostile.tarHardLink, /link/],
    ["a character device in a tar.gz", hostile.tarCharDevice, /device|type/],
    ["a FIFO in a tar.gz", hostile.tarFifo, /FIFO|fifo|type/],
    ["a control character in a zip name", hostile.zipControlName, /control/],
    ["a control character in a tar name", hostile.tarControlName, /control/],
    ["a zip that inflates to 10 GB", hostile.zipBomb, /times its compressed size|bytes/],
    ["a zip whose headers lie about its sizes", hostile.zipLyingSizes, /declares|bytes/],
    ["a zip of 100,000 entries", hostile.zipManyEntries, /entries/],
    ["a tar.gz of 100,000 entries", hostile.tarManyEntries, /entries/],
    ["a gzip bomb", hostile.tarGzBomb, /times its compressed size|bytes/],
  ];
  for (const [name, make, reason] of refusals) {
    it(`refuses ${name} with the reason, storing nothing (docs/security.md cases 171–180)`, async () => {
      const before = await contents();
      const reply = await putSource({ files: store.files, staged, limits, now: () => new Date() }, { project_id: "p3", staged: await stage(await make(dir)), strip: 0, author }).catch((error: unknown) => error);
      expect(reply).toMatchObject({ code: "ARCHIVE_REFUSED", message: expect.stringMatching(reason) });
      expect(await store.files.sources.current("p3")).toBeUndefined();
      expect(await contents()).toBe(before);
    });
  }

  it("refuses what is not an archive, and removes the staged upload whatever happens", async () => {
    const name = await stage(await hostile.writeCodeBaseZip(dir));
    await putSource({ files: store.files, staged, limits, now: () => new Date() }, { project_id: "p4", staged: name, strip: 0, author });
    await expect(staged.receive(name)).rejects.toMatchObject({ code: "NOT_FOUND" });
    const text = path.join(dir, "not-an-archive.txt");
    await (await import("node:fs/promises")).writeFile(text, "hello");
    await expect(putSource({ files: store.files, staged, limits, now: () => new Date() }, { project_id: "p4", staged: await stage(text), strip: 0, author })).rejects.toMatchObject({ code: "ARCHIVE_REFUSED" });
  });
});

describe("an import of BMAD work", () => {
  it("puts every file of the zip into the project in one commit, as the importer's revisions", async () => {
    await store.files.write(project("p5"), "_bmad-output/brief.md", "# Old brief\n", author);
    const file = await hostile.writeZip(path.join(dir, "bmad-output.zip"), [
      { name: "_bmad-output/brief.md", content: Buffer.from("# New brief\n") },
      { name: "_bmad-output/planning-artifacts/prd.md", content: Buffer.from("# PRD\n") },
      { name: "docs/index.md", content: Buffer.from("# Docs\n") },
    ]);
    const reply = await importArchive({ files: store.files, staged, limits, writablePath }, { space: project("p5"), staged: await stage(file), author: { user: "bob" } });
    expect(reply).toEqual({ success: true, files: 3, bytes: 25, skipped: [] });
    const brief = await store.files.read(project("p5"), "_bmad-output/brief.md");
    expect({ text: Buffer.from(brief.content).toString(), revision: brief.file.revision, user: brief.file.author.user }).toEqual({ text: "# New brief\n", revision: 2, user: "bob" });
  });

  it("stores nothing of an import over the project's quota, and nothing of a refused archive", async () => {
    const small = await openTestFileStore({ project: { maxBytes: 10, maxFiles: 10 } });
    const smallStaged = await StagedUploads.open(small.connection.jetstream(), { subjectPrefix: small.prefix, replicas: 1 });
    try {
      const file = await hostile.writeZip(path.join(dir, "too-big.zip"), [{ name: "a.md", content: Buffer.alloc(8, 97) }, { name: "b.md", content: Buffer.alloc(8, 98) }]);
      const uploads = await small.connection.jetstream().views.os(jetStreamNames(small.prefix).fileUploadsStore);
      await uploads.putBlob({ name: "too-big" }, await readFile(file));
      await expect(importArchive({ files: small.files, staged: smallStaged, limits, writablePath }, { space: project("q1"), staged: "too-big", author })).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
      expect((await small.files.index(project("q1"))).files.size).toBe(0);
    } finally {
      await smallStaged.close();
      await (await small.connection.jetstreamManager()).streams.delete(`OBJ_${jetStreamNames(small.prefix).fileUploadsStore}`).catch(() => undefined);
      await small.close();
    }
    await expect(importArchive({ files: store.files, staged, limits, writablePath }, { space: project("p6"), staged: await stage(await hostile.zipSlip(dir)), author })).rejects.toMatchObject({ code: "ARCHIVE_REFUSED" });
    expect((await store.files.index(project("p6"))).files.size).toBe(0);
  });
});
