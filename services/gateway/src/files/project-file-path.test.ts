import { describe, expect, it } from "vitest";
import { spacePath } from "./project-file-path.js";

const refusal = (segments: unknown) => {
  try {
    spacePath(segments);
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return "accepted";
};

describe("a file path from a route's segments", () => {
  it("joins the decoded segments of a path inside the space", () => {
    expect(spacePath(["_bmad-output", "planning-artifacts", "prd.md"])).toBe("_bmad-output/planning-artifacts/prd.md");
    expect(spacePath(["docs", "my notes.md"])).toBe("docs/my notes.md");
    expect(spacePath([".bmad-core", "x.md"])).toBe(".bmad-core/x.md");
  });

  it("refuses `..` and `.` however they were encoded, absolute paths, empty segments, backslashes and control characters", () => {
    for (const segments of [[".."], ["docs", ".."], ["a/../b"], ["."], ["", "etc", "passwd"], ["a", "", "b"], ["a\\..\\b"], ["a\u0000b"], ["a\nb"], [], "a"]) {
      expect(refusal(segments), JSON.stringify(segments)).toBe("INVALID_PATH");
    }
  });

  it("refuses a path longer than the file messages carry", () => {
    expect(refusal(["a".repeat(1025)])).toBe("INVALID_PATH");
    expect(refusal(["a".repeat(1024)])).toBe("accepted");
  });
});
