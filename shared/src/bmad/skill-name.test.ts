import { describe, expect, it } from "vitest";
import { assertSkillName, closeNames, skillNotFound } from "./skill-name.js";

describe("skill names", () => {
  it("accepts BMAD's names and refuses anything path-like", () => {
    for (const name of ["bmad-prd", "bmad-agent-analyst", "tidy.desk_2"]) expect(() => assertSkillName(name)).not.toThrow();
    for (const name of ["", "../etc", "a/b", ".hidden", "..", "a\\b", "x".repeat(102), "name with space"]) {
      expect(() => assertSkillName(name)).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
    }
  });

  it("suggests at most five close names, containing ones first", () => {
    const known = ["bmad-prd", "bmad-prfaq", "bmad-create-prd", "bmad-help", "bmad-review", "bmad-spec", "bmad-ux", "unrelated-thing"];
    const close = closeNames("bmad-prd2", known);
    expect(close[0]).toBe("bmad-prd");
    expect(close.length).toBeLessThanOrEqual(5);
    expect(close).not.toContain("unrelated-thing");
  });

  it("says SKILL_NOT_FOUND with the close names", () => {
    const error = skillNotFound("tidy-dsk", ["tidy-desk", "sweep"]);
    expect(error).toMatchObject({ code: "SKILL_NOT_FOUND", message: "Skill not found: tidy-dsk; close names: tidy-desk" });
  });
});
