import { describe, expect, it } from "vitest";
import type { ConversionLimits } from "./conversion.js";
import { convertDocument } from "./convert-document.js";
import { buildDocx, docxParagraph, docxTable } from "../testing/docx-fixture.js";
import { buildPdf } from "../testing/pdf-fixture.js";

const limits: ConversionLimits = { timeoutMs: 30_000, maxInputBytes: 4 * 1024 * 1024, maxOutputBytes: 1024 * 1024, heapMb: 256 };
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("convertDocument", () => {
  it("finds the text of a hand-made PDF", async () => {
    const pdf = buildPdf({ pages: [["Quarterly brief", "Revenue grew by 12 percent."]] });
    const conversion = await convertDocument("brief.pdf", pdf, limits);
    expect(conversion).toMatchObject({ kind: "markdown", format: "pdf" });
    const markdown = conversion.kind === "markdown" ? conversion.markdown : "";
    expect(markdown).toContain("Quarterly brief");
    expect(markdown).toContain("Revenue grew by 12 percent.");
    expect(markdown.startsWith("<!-- page 1 -->")).toBe(true);
  });

  it("separates the pages of a multi-page PDF in order", async () => {
    const pdf = buildPdf({ pages: [["First page text"], ["Second page text"], ["Third page text"]] });
    const conversion = await convertDocument("pages.PDF", pdf, limits);
    expect(conversion.kind).toBe("markdown");
    const markdown = conversion.kind === "markdown" ? conversion.markdown : "";
    expect(markdown).toBe(
      "<!-- page 1 -->\n\nFirst page text\n\n<!-- page 2 -->\n\nSecond page text\n\n<!-- page 3 -->\n\nThird page text\n",
    );
  });

  it("keeps a DOCX's heading, list, table and bold as Markdown", async () => {
    const docx = await buildDocx({
      body: [
        docxParagraph("Project plan", { style: "Heading1" }),
        docxParagraph("Scope", { bold: true }),
        docxParagraph("Collect requirements", { list: 1 }),
        docxParagraph("Write the brief", { list: 1 }),
        docxTable([
          ["Phase", "Weeks"],
          ["Discovery", "2"],
        ]),
      ].join(""),
    });
    const conversion = await convertDocument("plan.docx", docx, limits);
    expect(conversion.kind).toBe("markdown");
    const markdown = conversion.kind === "markdown" ? conversion.markdown : "";
    expect(markdown).toContain("# Project plan");
    expect(markdown).toContain("**Scope**");
    expect(markdown).toMatch(/^- Collect requirements$/m);
    expect(markdown).toMatch(/^- Write the brief$/m);
    expect(markdown).toMatch(/^\| Phase \| Weeks \|$/m);
    expect(markdown).toMatch(/^\| Discovery \| 2 +\|$/m);
  });

  it("keeps an HTML page's heading, table and emphasis as Markdown", async () => {
    const html = `<!doctype html><html><head><title>Prices</title></head><body>
      <h2>Price list</h2><p>Valid <strong>until June</strong>.</p>
      <table><thead><tr><th>Item</th><th>Price</th></tr></thead><tbody><tr><td>Tea</td><td>3 €</td></tr></tbody></table>
      <ul><li>cash</li><li>card</li></ul></body></html>`;
    const conversion = await convertDocument("prices.html", utf8(html), limits);
    expect(conversion.kind).toBe("markdown");
    const markdown = conversion.kind === "markdown" ? conversion.markdown : "";
    expect(markdown).toContain("## Price list");
    expect(markdown).toContain("Valid **until June**.");
    expect(markdown).toMatch(/^\| Item \| Price \|$/m);
    expect(markdown).toMatch(/^\| Tea \| 3 € \|$/m);
    expect(markdown).toMatch(/^- cash$/m);
    expect(markdown).not.toContain("Prices\n");
  });
});

describe("convertDocument, decoding HTML", () => {
  const latin1 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "latin1"));
  const markdownOf = async (name: string, bytes: Uint8Array): Promise<string> => {
    const conversion = await convertDocument(name, bytes, limits);
    return conversion.kind === "markdown" ? conversion.markdown : JSON.stringify(conversion);
  };

  it("reads its meta charset, else UTF-8 when valid, else windows-1252, and UTF-16 by its mark", async () => {
    expect(await markdownOf("meta.html", latin1('<meta charset="iso-8859-1"><p>Café</p>'))).toBe("Café");
    expect(await markdownOf("utf8.html", utf8("<p>Café €</p>"))).toBe("Café €");
    expect(await markdownOf("legacy.htm", latin1("<p>Café</p>"))).toBe("Café");
    const utf16 = new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("<p>Café</p>", "utf16le")]));
    expect(await markdownOf("wide.html", utf16)).toBe("Café");
  });

  it("fails binary content named .html", async () => {
    expect(await convertDocument("blob.html", new Uint8Array([0x3c, 0x70, 0x3e, 0, 1, 2]), limits)).toEqual({
      kind: "failed",
      reason: "not an HTML document: the file is binary",
      format: "html",
    });
  });
});

describe("convertDocument, when it cannot convert", () => {
  it("answers none for files that are no document it converts", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    expect(await convertDocument("logo.png", png, limits)).toEqual({ kind: "none" });
    expect(await convertDocument("notes.md", utf8("# notes"), limits)).toEqual({ kind: "none" });
    expect(await convertDocument("Makefile", utf8("all:"), limits)).toEqual({ kind: "none" });
    expect(await convertDocument("old.doc", new Uint8Array([0xd0, 0xcf, 0x11, 0xe0]), limits)).toEqual({ kind: "none" });
  });

  it("fails a .pdf that is plain text, and a .docx that is no zip, saying why", async () => {
    expect(await convertDocument("fake.pdf", utf8("just some text, not a PDF"), limits)).toEqual({
      kind: "failed",
      reason: "not a PDF: the file does not start with %PDF-",
      format: "pdf",
    });
    expect(await convertDocument("fake.docx", utf8("plain text"), limits)).toEqual({
      kind: "failed",
      reason: "not a Word document: the file is not a zip archive",
      format: "docx",
    });
  });

  it("fails a truncated PDF and a corrupt DOCX with a readable reason", async () => {
    const pdf = buildPdf({ pages: [["Soon cut"]] });
    expect(await convertDocument("cut.pdf", pdf.slice(0, 60), limits)).toEqual({
      kind: "failed",
      reason: "the PDF is damaged: Invalid PDF structure.",
      format: "pdf",
    });
    const docx = await buildDocx({ body: docxParagraph("Soon cut") });
    const conversion = await convertDocument("cut.docx", docx.slice(0, docx.byteLength - 30), limits);
    expect(conversion).toMatchObject({ kind: "failed", format: "docx" });
    expect(conversion.kind === "failed" && conversion.reason).toMatch(/^the Word document is damaged: .*central directory/);
  });

  it("fails a zip without word/document.xml as not a Word document", async () => {
    const docx = await buildDocx({ body: "" });
    // rename the main part inside the archive (same length, so the zip stays valid)
    const bytes = Buffer.from(docx);
    for (let at = bytes.indexOf("word/document.xml"); at !== -1; at = bytes.indexOf("word/document.xml", at + 1)) bytes.write("word/documenX.xml", at, "latin1");
    expect(await convertDocument("empty.docx", new Uint8Array(bytes), limits)).toEqual({
      kind: "failed",
      reason: "not a Word document: the archive has no word/document.xml",
      format: "docx",
    });
  });

  it("fails a PDF without text, whose pages may be scans", async () => {
    const conversion = await convertDocument("scan.pdf", buildPdf({ pages: [[], []] }), limits);
    expect(conversion).toMatchObject({ kind: "failed", format: "pdf" });
    expect(conversion.kind === "failed" && conversion.reason).toMatch(/^no text found in the PDF/);
  });

  it("fails a document over maxInputBytes without converting it", async () => {
    const pdf = buildPdf({ pages: [["Too big"]] });
    expect(await convertDocument("big.pdf", pdf, { ...limits, maxInputBytes: 100 })).toEqual({
      kind: "failed",
      reason: `too large to convert: ${pdf.byteLength} bytes; the limit is 100`,
      format: "pdf",
    });
  });

  it("fails a conversion past its time with the timeout reason, and the next one still works", async () => {
    const pdf = buildPdf({ pages: [["On time"]] });
    expect(await convertDocument("slow.pdf", pdf, { ...limits, timeoutMs: 1 })).toEqual({
      kind: "failed",
      reason: "conversion took longer than 0.001 s",
      format: "pdf",
    });
    expect(await convertDocument("fast.pdf", pdf, limits)).toMatchObject({ kind: "markdown", markdown: "<!-- page 1 -->\n\nOn time\n" });
  });

  it("fails a conversion whose worker runs out of memory, and the next one still works", async () => {
    const pdf = buildPdf({ pages: [["Enough memory"]] });
    expect(await convertDocument("tight.pdf", pdf, { ...limits, heapMb: 4 })).toEqual({
      kind: "failed",
      reason: "conversion needed more memory than its limit of 4 MB",
      format: "pdf",
    });
    expect(await convertDocument("roomy.pdf", pdf, limits)).toMatchObject({ kind: "markdown" });
  });
});

describe("convertDocument, past maxOutputBytes", () => {
  it("cuts HTML's Markdown at a character boundary within the limit, with a note", async () => {
    const html = `<p>${"Grüße aus Köln – ".repeat(200)}</p>`;
    const conversion = await convertDocument("long.html", utf8(html), { ...limits, maxOutputBytes: 300 });
    expect(conversion.kind).toBe("markdown");
    const markdown = conversion.kind === "markdown" ? conversion.markdown : "";
    const bytes = utf8(markdown);
    expect(bytes.byteLength).toBeLessThanOrEqual(300);
    expect(new TextDecoder("utf-8", { fatal: true }).decode(bytes)).toBe(markdown);
    expect(markdown).toMatch(/^Grüße aus Köln/);
    expect(markdown).toMatch(/\n<!-- cut here: the Markdown form of this document is longer than its limit of 300 bytes -->\n$/);
  });

  it("stops reading a PDF's pages once past the limit", async () => {
    const pages = Array.from({ length: 40 }, (_, index) => [`Page ${index + 1} says ${"words ".repeat(40)}`]);
    const conversion = await convertDocument("long.pdf", buildPdf({ pages }), { ...limits, maxOutputBytes: 1024 });
    const markdown = conversion.kind === "markdown" ? conversion.markdown : "";
    expect(utf8(markdown).byteLength).toBeLessThanOrEqual(1024);
    expect(markdown).toContain("Page 1 says");
    expect(markdown).not.toContain("Page 40 says");
    expect(markdown).toMatch(/<!-- cut here: .* -->\n$/);
  });
});
