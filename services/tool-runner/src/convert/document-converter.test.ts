import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { ConversionLimits } from "./conversion.js";
import { DocumentConverter } from "./document-converter.js";
import { stoppedReason } from "./run-conversion-worker.js";
import { buildPdf } from "../testing/pdf-fixture.js";

const limits: ConversionLimits = { timeoutMs: 30_000, maxInputBytes: 8 * 1024 * 1024, maxOutputBytes: 1024 * 1024, heapMb: 256 };
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
// hundreds of thousands of paragraphs: seconds of turndown, long enough to be stopped while running
const slowHtml = utf8(`<p>${"<p>slow</p>".repeat(300_000)}</p>`);
// a fraction of a second of turndown each: five in a row are what a busy user's uploads cost the others
const busyHtml = utf8(`<p>${"<p>busy</p>".repeat(1_000)}</p>`);

describe("DocumentConverter", () => {
  it("converts documents queued behind each other, each in its order", async () => {
    const converter = new DocumentConverter(limits, { perUser: 3 });
    const names = ["one", "two", "three"];
    const conversions = await Promise.all(names.map((name) => converter.convert(`${name}.pdf`, buildPdf({ pages: [[`Text of ${name}`]] }), "alice")));
    expect(conversions.map((conversion) => (conversion.kind === "markdown" ? conversion.markdown : conversion.kind))).toEqual(
      names.map((name) => `<!-- page 1 -->\n\nText of ${name}\n`),
    );
    await converter.close();
  });

  it("answers files it does not convert at once, even behind a slow conversion", async () => {
    const converter = new DocumentConverter(limits);
    const slow = converter.convert("slow.html", slowHtml, "alice");
    expect(await converter.convert("photo.png", new Uint8Array([0x89, 0x50]), "alice")).toEqual({ kind: "none" });
    expect(await converter.convert("fake.pdf", utf8("text"), "alice")).toMatchObject({ kind: "failed", format: "pdf" });
    await converter.close();
    expect(await slow).toEqual({ kind: "failed", reason: stoppedReason, format: "html" });
  });

  it("stops a running conversion and the queued ones at close, and converts nothing after", async () => {
    const converter = new DocumentConverter(limits, { workers: 1 });
    const running = converter.convert("slow.html", slowHtml, "alice");
    const queued = converter.convert("queued.pdf", buildPdf({ pages: [["Queued"]] }), "bob");
    // the slow one's worker is under way (it would take seconds); had it not started, the answer would be the same
    await sleep(200);
    await converter.close();
    expect(await running).toEqual({ kind: "failed", reason: stoppedReason, format: "html" });
    expect(await queued).toEqual({ kind: "failed", reason: stoppedReason, format: "pdf" });
    expect(await converter.convert("late.pdf", buildPdf({ pages: [["Late"]] }), "alice")).toEqual({ kind: "failed", reason: stoppedReason, format: "pdf" });
  });

  it("converts another user's small document after the one running, before one user's other slow ones", async () => {
    const converter = new DocumentConverter(limits, { workers: 1, maxWaiting: 10, perUser: 5 });
    const finished: string[] = [];
    const convert = (label: string, user: string, name: string, content: Uint8Array) =>
      converter.convert(name, content, user).then((conversion) => {
        finished.push(label);
        return conversion;
      });
    // all six are queued at once, in this order: alice's five slow pages, then bob's 60 bytes
    const alices = [1, 2, 3, 4, 5].map((index) => convert(`alice ${index}`, "alice", `slow-${index}.html`, busyHtml));
    const bobs = convert("bob", "bob", "note.html", utf8("<h1>Note</h1><p>Sixty bytes of an HTML page, more or less.</p>"));
    expect(await bobs).toEqual({ kind: "markdown", markdown: "# Note\n\nSixty bytes of an HTML page, more or less.", format: "html" });
    await Promise.all(alices);
    expect(finished).toEqual(["alice 1", "bob", "alice 2", "alice 3", "alice 4", "alice 5"]);
    await converter.close();
  });

  it("answers a document past the queue's bounds failed with the reason, without converting it", async () => {
    const converter = new DocumentConverter(limits, { workers: 1, maxWaiting: 1, perUser: 2 });
    const running = converter.convert("slow.html", slowHtml, "alice");
    const waiting = converter.convert("waiting.pdf", buildPdf({ pages: [["Waiting"]] }), "bob");
    expect(await converter.convert("third.pdf", buildPdf({ pages: [["Third"]] }), "carol")).toEqual({
      kind: "failed",
      reason: "conversion queue full (1 waiting); upload it again later",
      format: "pdf",
    });
    await converter.close();
    await Promise.all([running, waiting]);
  });
});
