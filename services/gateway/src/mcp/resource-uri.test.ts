import { describe, expect, it } from "vitest";
import { parseProjectResourceUri, projectResourceUri } from "./resource-uri.js";

describe("project resource URIs", () => {
  it("round-trips a path with spaces, # and ? in its segments", () => {
    const uri = projectResourceUri("p1", "docs/my plan #2?.md");
    expect(uri).toBe("bmad://project/p1/docs/my%20plan%20%232%3F.md");
    expect(parseProjectResourceUri(uri)).toEqual({ projectId: "p1", path: "docs/my plan #2?.md" });
  });

  it("names nothing for another scheme, a missing path or a malformed escape", () => {
    expect(parseProjectResourceUri("file:///etc/passwd")).toBeUndefined();
    expect(parseProjectResourceUri("bmad://project/p1")).toBeUndefined();
    expect(parseProjectResourceUri("bmad://project/p1/")).toBeUndefined();
    expect(parseProjectResourceUri("bmad://project//prd.md")).toBeUndefined();
    expect(parseProjectResourceUri("bmad://project/p1/%E0%A4%A")).toBeUndefined();
  });
});
