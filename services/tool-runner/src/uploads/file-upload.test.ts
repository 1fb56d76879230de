import { putObjectPaced } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DocumentConverter } from "../convert/index.js";
import { StagedUploads } from "../store/staged-uploads.js";
import { checkedWritablePath } from "../store/space-path.js";
import { openTestFileStore, type TestFileStore } from "../testing/file-store-fixture.js";
import { buildPdf } from "../testing/pdf-fixture.js";
import { uploadFile, type FileUploadDeps } from "./file-upload.js";

// One upload becomes the next revision of its path, a document with its Markdown form in the same commit, and
// the staged body is removed whatever happens (docs/uploads.md "How an upload travels").
let store: TestFileStore;
let staged: StagedUploads;
let converter: DocumentConverter;
let deps: FileUploadDeps;
const space: FileSpaceRef = { kind: "project", id: "p1" };
const author = { user: "alice" };

beforeAll(async () => {
  store = await openTestFileStore({ project: { maxBytes: 64 * 1024, maxFiles: 5 } });
  staged = await StagedUploads.open(store.connection.jetstream(), { subjectPrefix: store.prefix, replicas: 1 });
  converter = new DocumentConverter({ timeoutMs: 30_000, maxInputBytes: 1 << 20, maxOutputBytes: 1 << 20, heapMb: 256 });
  deps = { files: store.files, staged, writablePath: async (target, input) => checkedWritablePath(target, input), converter, convertMaxBytes: 1 << 20 };
});

afterAll(async () => {
  await Promise.all([staged.close(), converter.close()]);
  await (await store.connection.jetstreamManager()).streams.delete(`OBJ_${jetStreamNames(store.prefix).fileUploadsStore}`).catch(() => undefined);
  await store.close();
});

/** Stages `content` in windows, as the gateway streams a body. */
async function stage(content: Uint8Array): Promise<string> {
  const uploads = await store.connection.jetstream().views.os(jetStreamNames(store.prefix).fileUploadsStore);
  const name = `u${Math.random().toString(36).slice(2)}`;
  await putObjectPaced(() => store.connection.flush(), uploads, name, (async function* () {
    for (let start = 0; start < content.byteLength; start += 1000) yield content.subarray(start, start + 1000);
  })(), { windowBytes: 4096 });
  return name;
}

describe("an upload", () => {
  it("stores any bytes as the next revision, by the uploader, and removes the staged body", async () => {
    const bytes = new Uint8Array(Array.from({ length: 20_000 }, (_, index) => (index * 7) % 256));
    const name = await stage(bytes);
    const first = await uploadFile(deps, { space, path: "inputs/logo.png", staged: name, author });
    expect(first).toMatchObject({ success: true, file: { path: "inputs/logo.png", revision: 1, size: 20_000, author } });
    expect(Buffer.from((await store.files.read(space, "inputs/logo.png")).content)).toEqual(Buffer.from(bytes));
    await expect(staged.receive(name)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await uploadFile(deps, { space, path: "inputs/logo.png", staged: await stage(bytes.subarray(0, 10)), author: { user: "bob" } })).toMatchObject({ file: { revision: 2, size: 10, author: { user: "bob" } } });
  });

  it("converts a PDF to Markdown beside it in the same commit, and records why a false one was not", async () => {
    const pdf = buildPdf({ pages: [["Market research", "Tourists like fog."]] });
    const reply = await uploadFile(deps, { space, path: "inputs/research.pdf", staged: await stage(pdf), author });
    expect(reply).toMatchObject({ success: true, file: { conversion: { markdown_path: "inputs/research.pdf.md" } }, markdown: { path: "inputs/research.pdf.md", converted_from: "inputs/research.pdf" } });
    expect(Buffer.from((await store.files.read(space, "inputs/research.pdf.md")).content).toString()).toContain("Tourists like fog.");
    const fake = await uploadFile(deps, { space, path: "inputs/fake.pdf", staged: await stage(Buffer.from("plain text")), author });
    expect(fake).toMatchObject({ success: true, file: { conversion: { error: expect.stringMatching(/not a PDF/) } } });
    expect(await store.files.stat(space, "inputs/fake.pdf.md")).toBeUndefined();
  });

  it("stores a document that finds the conversion queue full, with that reason and no Markdown form", async () => {
    // one conversion slot, taken by a slow page of alice's, and no room to wait (CONVERT_QUEUE_MAX=0)
    const full = new DocumentConverter({ timeoutMs: 30_000, maxInputBytes: 1 << 20, maxOutputBytes: 1 << 20, heapMb: 256 }, { maxWaiting: 0 });
    const running = full.convert("slow.html", Buffer.from(`<p>${"<p>slow</p>".repeat(50_000)}</p>`), "alice");
    const pdf = buildPdf({ pages: [["Queued out"]] });
    const reply = await uploadFile({ ...deps, converter: full }, { space, path: "inputs/late.pdf", staged: await stage(pdf), author: { user: "bob" } });
    expect(reply).toMatchObject({ success: true, file: { path: "inputs/late.pdf", size: pdf.byteLength, conversion: { error: "conversion queue full (0 waiting); upload it again later" } } });
    expect(reply).not.toHaveProperty("markdown");
    expect(await store.files.stat(space, "inputs/late.pdf.md")).toBeUndefined();
    await full.close();
    await running;
  });

  it("over the project's quota records nothing and still removes the staged body (507)", async () => {
    const name = await stage(new Uint8Array(70 * 1024));
    await expect(uploadFile(deps, { space, path: "inputs/huge.bin", staged: name, author })).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
    expect(await store.files.stat(space, "inputs/huge.bin")).toBeUndefined();
    await expect(staged.receive(name)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses a path the project may not hold before it takes the body", async () => {
    const name = await stage(Buffer.from("x"));
    await expect(uploadFile(deps, { space, path: "_bmad/bmm/config.yaml", staged: name, author })).rejects.toMatchObject({ code: "PROTECTED_PATH" });
    await expect(staged.receive(name)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
