import { describe, expect, it } from "vitest";
import { findProtectedSegment, isProtectedSegment } from "./protected-names.js";

describe("protected names", () => {
  it("protects version control, secrets and dot-config folders", () => {
    for (const name of [".git", ".env", ".env.local", ".envrc", ".npmrc", ".ssh", ".aws", ".netrc"]) {
      expect(isProtectedSegment(name)).toBe(true);
    }
  });

  it("compares case-insensitively (case 28)", () => {
    expect(isProtectedSegment(".GIT")).toBe(true);
    expect(isProtectedSegment(".Git")).toBe(true);
    expect(isProtectedSegment(".ENV")).toBe(true);
  });

  it("leaves ordinary names alone", () => {
    for (const name of ["git", "env.md", "config.yaml", ".github-notes.md", "my.env"]) expect(isProtectedSegment(name)).toBe(false);
  });

  it("finds a protected segment anywhere in a relative path", () => {
    expect(findProtectedSegment("a/.git/hooks/pre-commit")).toBe(".git");
    expect(findProtectedSegment("a/b/c.md")).toBeUndefined();
  });
});
