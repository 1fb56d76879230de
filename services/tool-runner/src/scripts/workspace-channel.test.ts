import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readWorkspaceReport, writeWorkspaceInput } from "./workspace-channel.js";

let staging: string;
beforeEach(async () => {
  staging = await mkdtemp(path.join(tmpdir(), "ao-report-test-"));
});
afterEach(() => rm(staging, { recursive: true, force: true }));

/** The launcher's side of the channel: frames as it writes them. */
function frames(...parts: Array<string | Buffer>): PassThrough {
  const stream = new PassThrough();
  stream.end(Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part))));
  return stream;
}

const bounds = () => ({ staging, maxBytes: 100, maxFrames: 10 });

describe("readWorkspaceReport", () => {
  it("stages each file under a numbered name, never its own, and reads deletions, refusals and the end", async () => {
    const report = await readWorkspaceReport(
      frames('{"file":"../../etc/x","size":3}\n', "abc", '{"delete":"old.md"}\n', '{"skipped":"lnk","reason":"not a regular file"}\n', '{"end":true,"exit":0,"disk_full":false}\n'),
      bounds(),
    );
    expect(report).toMatchObject({ deleted: ["old.md"], skipped: [{ relative: "lnk", reason: "not a regular file" }], end: { exit: 0, diskFull: false } });
    expect(report.files).toEqual([{ relative: "../../etc/x", size: 3, staged: path.join(staging, "0") }]);
    expect(await readFile(path.join(staging, "0"), "utf8")).toBe("abc");
    expect(report.violation).toBeUndefined();
  });

  it("stops at the byte bound: files announced past it are a violation, whatever their bytes", async () => {
    const report = await readWorkspaceReport(frames('{"file":"a","size":60}\n', Buffer.alloc(60), '{"file":"b","size":60}\n', Buffer.alloc(60), '{"end":true}\n'), bounds());
    expect(report.violation).toMatch(/disk limit/);
    expect(report.end).toBeUndefined();
  });

  it("stops at the frame bound, on a malformed frame, on an endless header line and on bytes after the end", async () => {
    const many = Array.from({ length: 11 }, () => '{"delete":"x"}\n');
    expect((await readWorkspaceReport(frames(...many), bounds())).violation).toMatch(/too many/);
    expect((await readWorkspaceReport(frames('{"file":"a","size":-1}\n'), bounds())).violation).toMatch(/malformed/);
    expect((await readWorkspaceReport(frames('{"__proto__":{"end":true}}\n'), bounds())).violation).toMatch(/malformed/);
    expect((await readWorkspaceReport(frames("x".repeat(20_000)), bounds())).violation).toMatch(/too long/);
    expect((await readWorkspaceReport(frames('{"end":true}\n{"file":"late","size":1}\nz'), bounds())).violation).toMatch(/after its end/);
  });

  it("has no end when the channel closes early: the launcher was killed", async () => {
    const report = await readWorkspaceReport(frames('{"file":"a","size":10}\n', "abc"), bounds());
    expect(report.end).toBeUndefined();
    expect(report.violation).toBeUndefined();
  });
});

describe("writeWorkspaceInput", () => {
  it("sends each file as a header and its bytes, then the end", async () => {
    const channel = new PassThrough();
    const received: Buffer[] = [];
    channel.on("data", (chunk: Buffer) => received.push(chunk));
    const hello = () => Promise.resolve(new TextEncoder().encode("hello"));
    await writeWorkspaceInput(channel, [{ relative: "project/docs/in.md", size: 5, content: hello }]);
    expect(Buffer.concat(received).toString()).toBe('{"path":"project/docs/in.md","size":5}\nhello{"end":true}\n');
  });

  it("keeps the size it announced when a content is shorter or longer", async () => {
    const channel = new PassThrough();
    const received: Buffer[] = [];
    channel.on("data", (chunk: Buffer) => received.push(chunk));
    const bytes = (text: string) => () => Promise.resolve(new TextEncoder().encode(text));
    await writeWorkspaceInput(channel, [
      { relative: "session/a", size: 3, content: bytes("a") },
      { relative: "session/b", size: 2, content: bytes("bbbb") },
    ]);
    expect(Buffer.concat(received).toString()).toBe('{"path":"session/a","size":3}\na\0\0{"path":"session/b","size":2}\nbb{"end":true}\n');
  });
});
