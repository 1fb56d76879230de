import { isInside } from "../runtime/path-containment.js";
import { describe, expect, it } from "vitest";
import { checkManifestPath } from "./manifest-path.js";

describe("isInside", () => {
  it("compares path segments, not string prefixes", () => {
    expect(isInside("/srv/bundles/a", "/srv/bundles/a")).toBe(true);
    expect(isInside("/srv/bundles/a", "/srv/bundles/a/agents/x.md")).toBe(true);
    expect(isInside("/srv/bundles/a", "/srv/bundles/a/..foo")).toBe(true);
    expect(isInside("/srv/bundles/a", "/srv/bundles/ab/x.md")).toBe(false);
    expect(isInside("/srv/bundles/a", "/srv/bundles")).toBe(false);
    expect(isInside("/srv/bundles/a", "/etc/passwd")).toBe(false);
  });
});

describe("checkManifestPath", () => {
  it("normalises a relative path that stays inside", () => {
    expect(checkManifestPath("agents/./x.md")).toEqual({ ok: true, path: "agents/x.md" });
    expect(checkManifestPath("a/../agents/x.md")).toEqual({ ok: true, path: "agents/x.md" });
  });

  it.each([
    ["../../../etc/passwd", "leaves its folder"],
    ["agents/../../x.md", "leaves its folder"],
    ["/etc/passwd", "is absolute"],
    ["C:\\Windows\\win.ini", "contains a backslash"],
    ["C:foo", "is absolute"],
    ["..\\..\\etc\\passwd", "contains a backslash"],
    ["agents/x\u0000.md", "contains a control character"],
    [".", "names the folder itself"],
    ["a/".repeat(600), "is too long"],
  ])("rejects %j (%s) before any filesystem call (docs/security.md case 85)", (value, reason) => {
    expect(checkManifestPath(value)).toEqual({ ok: false, reason });
  });
});
