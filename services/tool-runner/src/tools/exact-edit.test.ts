import { AppError } from "@agent-orchestrator/shared/runtime";
import { describe, expect, it } from "vitest";
import { applyExactEdit, type ExactEdit } from "./exact-edit.js";

const prd = "---\nstepsCompleted: [1, 2]\nstatus: draft\n---\n# PRD\n\n## FR-001\nstatus: draft\n";

function refusal(text: string, edit: ExactEdit): AppError {
  try {
    applyExactEdit(text, edit, "{project-root}/prd.md");
  } catch (error) {
    if (AppError.is(error)) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("applyExactEdit", () => {
  it("replaces the one occurrence and says on which line of the new text it starts", () => {
    const outcome = applyExactEdit(prd, { old_string: "stepsCompleted: [1, 2]", new_string: "stepsCompleted: [1, 2, 3]" }, "p");
    expect(outcome.text).toBe(prd.replace("[1, 2]", "[1, 2, 3]"));
    expect(outcome).toMatchObject({ replacements: 1, lines: [2] });
  });

  it("refuses an old string that occurs twice with the count and the lines, and changes nothing", () => {
    const error = refusal(prd, { old_string: "status: draft", new_string: "status: final" });
    expect(error.code).toBe("EDIT_NOT_UNIQUE");
    expect(error.message).toContain("occurs 2 times in {project-root}/prd.md (at lines 3, 8)");
    expect(error.message).toContain("replace_all");
  });

  it("replaces every occurrence with replace_all", () => {
    const outcome = applyExactEdit(prd, { old_string: "status: draft", new_string: "status: final", replace_all: true }, "p");
    expect(outcome.text).toBe(prd.replaceAll("status: draft", "status: final"));
    expect(outcome).toMatchObject({ replacements: 2, lines: [3, 8] });
  });

  it("counts the lines of later replacements in the text as edited, after earlier ones changed its line count", () => {
    const outcome = applyExactEdit("a\nx\nb\nx\n", { old_string: "x", new_string: "y\ny\ny", replace_all: true }, "p");
    expect(outcome.text).toBe("a\ny\ny\ny\nb\ny\ny\ny\n");
    expect(outcome.lines).toEqual([2, 6]);
  });

  it("refuses a missing string, naming the line where the same words stand with other spacing", () => {
    const error = refusal(prd, { old_string: "## FR-001\n\nstatus:   draft", new_string: "x" });
    expect(error.code).toBe("EDIT_NO_MATCH");
    expect(error.message).toContain("differs only in spacing or line breaks starts at line 7");
    const plain = refusal(prd, { old_string: "status: approved", new_string: "x" });
    expect(plain.message).toContain("Read the file again");
  });

  it("matches a file with Windows line breaks when the model wrote \\n, and keeps the file's line breaks", () => {
    const crlf = "title: A\r\nstatus: draft\r\nend\r\n";
    const outcome = applyExactEdit(crlf, { old_string: "status: draft\nend", new_string: "status: final\nend" }, "p");
    expect(outcome.text).toBe("title: A\r\nstatus: final\r\nend\r\n");
  });

  it("takes the new text literally: $& and $1 are not replacement patterns", () => {
    expect(applyExactEdit("price: X\n", { old_string: "X", new_string: "$& $1 $$" }, "p").text).toBe("price: $& $1 $$\n");
  });

  it("refuses an edit that changes nothing", () => {
    expect(refusal(prd, { old_string: "# PRD", new_string: "# PRD" }).code).toBe("BAD_REQUEST");
  });
});
