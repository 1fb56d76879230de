import { describe, expect, it } from "vitest";
import { sessionLinkTarget } from "./session-link.js";

describe("sessionLinkTarget", () => {
  it("reads a plain relative link as a session file, resolved against the linking file's folder", () => {
    expect(sessionLinkTarget("brief.md")).toBe("brief.md");
    expect(sessionLinkTarget("./notes/a%20b.md")).toBe("notes/a b.md");
    expect(sessionLinkTarget("c.md", "notes/a.md")).toBe("notes/c.md");
    expect(sessionLinkTarget("../c.md#part", "notes/a.md")).toBe("c.md");
  });

  it("keeps a link from climbing out of the session folder", () => {
    expect(sessionLinkTarget("../../../etc/passwd", "a.md")).toBe("etc/passwd");
  });

  it("leaves web links, absolute paths and fragments alone", () => {
    for (const href of ["https://example.com/a.md", "mailto:a@b.c", "/api/agents", "#top", "?x=1", "", "\\\\host\\share"]) {
      expect(sessionLinkTarget(href)).toBeUndefined();
    }
  });
});
