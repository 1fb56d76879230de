import { describe, expect, it } from "vitest";
import { fileKind } from "./file-kind.js";

describe("fileKind", () => {
  it("tells the viewer's kinds apart by extension, in any case", () => {
    expect(["a/brief.md", "brief.pdf.md", "x.JSON", "data.csv", "config.yml", "b.yaml", "brief.pdf", "notes.DOCX", "logo.png", "src/main.ts", "Makefile"].map(fileKind)).toEqual([
      "markdown",
      "markdown",
      "json",
      "csv",
      "yaml",
      "yaml",
      "document",
      "document",
      "binary",
      "text",
      "text",
    ]);
  });

  it("does not take inherited property names for extensions", () => {
    expect(fileKind("x.constructor")).toBe("text");
    expect(fileKind("x.__proto__")).toBe("text");
  });
});
