import { describe, expect, it } from "vitest";
import { installResourceUri, parseInstallResourceUri, parseProjectResourceUri, projectResourceUri } from "./resource-uri.js";

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

describe("installed file resource URIs", () => {
  it("round-trips a path from BMAD_ROOT, its dot folders kept", () => {
    const uri = installResourceUri(".claude/skills/bmad-prd/my step #1.md");
    expect(uri).toBe("bmad://install/.claude/skills/bmad-prd/my%20step%20%231.md");
    expect(parseInstallResourceUri(uri)).toEqual({ path: ".claude/skills/bmad-prd/my step #1.md" });
  });

  it("names nothing for a project's URI, a missing path or a malformed escape", () => {
    expect(parseInstallResourceUri("bmad://project/p1/docs/prd.md")).toBeUndefined();
    expect(parseInstallResourceUri("bmad://install/")).toBeUndefined();
    expect(parseInstallResourceUri("bmad://install/_bmad/%E0%A4%A")).toBeUndefined();
  });
});
