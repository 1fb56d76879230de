import { describe, expect, it } from "vitest";
import { claimedFormat, documentFormat } from "./document-format.js";

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "latin1"));

describe("documentFormat", () => {
  it("knows a document by its extension and its first bytes together", () => {
    expect(documentFormat("brief.pdf", bytes("%PDF-1.7\n"))).toBe("pdf");
    expect(documentFormat("Brief.PDF", bytes("\r\n%PDF-1.4"))).toBe("pdf");
    expect(documentFormat("plan.docx", bytes("PK\x03\x04rest"))).toBe("docx");
    expect(documentFormat("page.html", bytes("<html>"))).toBe("html");
    expect(documentFormat("page.htm", bytes("anything"))).toBe("html");
    expect(documentFormat("page.xhtml", bytes("<?xml"))).toBe("html");
  });

  it("takes a PDF header anywhere in the first kilobyte, as readers do, and no later", () => {
    expect(documentFormat("junk.pdf", bytes(`${" ".repeat(1024)}%PDF-1.7`))).toBe("pdf");
    expect(documentFormat("junk.pdf", bytes(`${" ".repeat(1025)}%PDF-1.7`))).toBeUndefined();
  });

  it("refuses a name or bytes that disagree", () => {
    expect(documentFormat("fake.pdf", bytes("hello"))).toBeUndefined();
    expect(documentFormat("fake.docx", bytes("%PDF-1.7"))).toBeUndefined();
    expect(documentFormat("report.txt", bytes("%PDF-1.7"))).toBeUndefined();
    expect(documentFormat("archive.zip", bytes("PK\x03\x04"))).toBeUndefined();
    expect(documentFormat("empty.pdf", new Uint8Array())).toBeUndefined();
  });
});

describe("claimedFormat", () => {
  it("reads the last extension only, case-blind", () => {
    expect(claimedFormat("a.pdf.md")).toBeUndefined();
    expect(claimedFormat("a.md.PDF")).toBe("pdf");
    expect(claimedFormat("pdf")).toBeUndefined();
    expect(claimedFormat(".htm")).toBe("html");
  });
});
