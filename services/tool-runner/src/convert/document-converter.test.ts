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

describe("DocumentConverter", () => {
  it("converts documents queued behind each other, each in its order", async () => {
    const converter = new DocumentConverter(limits);
    const names = ["one", "two", "three"];
    const conversions = await Promise.all(names.map((name) => converter.convert(`${name}.pdf`, buildPdf({ pages: [[`Text of ${name}`]] }))));
    expect(conversions.map((conversion) => (conversion.kind === "markdown" ? conversion.markdown : conversion.kind))).toEqual(
      names.map((name) => `<!-- page 1 -->\n\nText of ${name}\n`),
    );
    await converter.close();
  });

  it("answers files it does not convert at once, even behind a slow conversion", async () => {
    const converter = new DocumentConverter(limits);
    const slow = converter.convert("slow.html", slowHtml);
    expect(await converter.convert("photo.png", new Uint8Array([0x89, 0x50]))).toEqual({ kind: "none" });
    expect(await converter.convert("fake.pdf", utf8("text"))).toMatchObject({ kind: "failed", format: "pdf" });
    await converter.close();
    expect(await slow).toEqual({ kind: "failed", reason: stoppedReason, format: "html" });
  });

  it("stops a running conversion and the queued ones at close, and converts nothing after", async () => {
    const converter = new DocumentConverter(limits, { workers: 1 });
    const running = converter.convert("slow.html", slowHtml);
    const queued = converter.convert("queued.pdf", buildPdf({ pages: [["Queued"]] }));
    // the slow one's worker is under way (it would take seconds); had it not started, the answer would be the same
    await sleep(200);
    await converter.close();
    expect(await running).toEqual({ kind: "failed", reason: stoppedReason, format: "html" });
    expect(await queued).toEqual({ kind: "failed", reason: stoppedReason, format: "pdf" });
    expect(await converter.convert("late.pdf", buildPdf({ pages: [["Late"]] }))).toEqual({ kind: "failed", reason: stoppedReason, format: "pdf" });
  });
});
