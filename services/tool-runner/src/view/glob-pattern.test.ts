import { describe, expect, it } from "vitest";
import { planGlob, widerGlob } from "./glob-pattern.js";

describe("planGlob", () => {
  it.each([
    ["{planning_artifacts}/**/architecture*.md", undefined, { base: "{planning_artifacts}", glob: "**/architecture*.md" }],
    ["{project-root}/docs/*.md", undefined, { base: "{project-root}/docs", glob: "*.md" }],
    ["{session-folder}", undefined, { base: "{session-folder}", glob: "**" }],
    ["{project-root}/docs/prd.md", undefined, { base: "{project-root}/docs/prd.md", glob: "**" }],
    ["/etc/*", undefined, { base: "/etc", glob: "*" }],
    ["**/prd.md", undefined, { base: undefined, glob: "**/prd.md" }],
    ["./docs/*.md", undefined, { base: undefined, glob: "docs/*.md" }],
    ["{docs,notes}/*.md", undefined, { base: undefined, glob: "{docs,notes}/*.md" }],
    ["stories/*.md", "{planning_artifacts}/", { base: "{planning_artifacts}/stories", glob: "*.md" }],
    ["{a,b}/*.md", "{project-root}", { base: "{project-root}", glob: "{a,b}/*.md" }],
  ])("splits %s (path %s) into its literal folder and glob", (pattern, folder, plan) => {
    expect(planGlob(pattern, folder)).toEqual(plan);
  });

  it.each(["../x", "docs/../../x", "a\u0000b", "a\u202Eb"])("refuses %j with INVALID_PATTERN", (pattern) => {
    expect(() => planGlob(pattern, undefined)).toThrow(expect.objectContaining({ code: "INVALID_PATTERN" }));
  });
});

describe("widerGlob", () => {
  it("puts ** before the first name, after a leading variable", () => {
    expect(widerGlob("prd.md")).toBe("**/prd.md");
    expect(widerGlob("{planning_artifacts}/prd.md")).toBe("{planning_artifacts}/**/prd.md");
    expect(widerGlob("**/prd.md")).toBeUndefined();
  });
});
