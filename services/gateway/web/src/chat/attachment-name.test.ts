import { describe, expect, it } from "vitest";
import { attachmentName } from "./attachment-name.js";

describe("attachmentName", () => {
  it("reads the quoted file name the export sends", () => {
    expect(attachmentName('attachment; filename="Plan v2.md"')).toBe("Plan v2.md");
  });

  it("prefers the UTF-8 name when both are given", () => {
    expect(attachmentName("attachment; filename=\"Caf_.md\"; filename*=UTF-8''Caf%C3%A9.md")).toBe("Café.md");
  });

  it("takes an unquoted name, and gives nothing without a header or a name", () => {
    expect(attachmentName("attachment; filename=notes.md")).toBe("notes.md");
    expect(attachmentName(null)).toBeUndefined();
    expect(attachmentName("attachment")).toBeUndefined();
  });
});
