import { describe, expect, it } from "vitest";
import { readableReason } from "./readable-reason.js";

describe("readableReason", () => {
  it("names the kinds of failure users can act on", () => {
    expect(readableReason("pdf", { name: "PasswordException", message: "No password given" })).toBe("the PDF is protected by a password");
    expect(readableReason("html", { name: "RangeError", message: "Maximum call stack size exceeded" })).toBe("the HTML document is nested too deeply to convert");
  });

  it("shows no host path and no more than the first line", () => {
    const reason = readableReason("docx", {
      name: "Error",
      message: "could not open external image: 'file:///etc/passwd' (document directory: '/srv/data/projects/x')\n    at read (/app/node_modules/mammoth/lib/docx/files.js:30:12)",
    });
    expect(reason).toBe("could not read the Word document: could not open external image: '<path>' (document directory: '<path>')");
  });

  it("cuts a long message short", () => {
    const reason = readableReason("pdf", { name: "Error", message: "x".repeat(1000) });
    expect(reason).toBe(`could not read the PDF: ${"x".repeat(200)}…`);
  });
});
