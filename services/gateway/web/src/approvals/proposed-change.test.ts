import { describe, expect, it } from "vitest";
import { proposedChange } from "./proposed-change.js";

const file = (text: string) => ({ exists: true as const, text });

describe("proposedChange", () => {
  it("compares a save_output with the file as it is now, or with no file", () => {
    expect(proposedChange("save_output", { file_path: "a.md", content: "new\n" }, file("old\n"))).toEqual({ kind: "diff", before: "old\n", after: "new\n", basis: "file" });
    expect(proposedChange("save_output", { file_path: "a.md", content: "new\n" }, { exists: false })).toEqual({ kind: "diff", before: "", after: "new\n", basis: "new-file" });
    expect(proposedChange("save_output", { file_path: "a.md", content: "new\n" }, undefined)).toEqual({ kind: "diff", before: "", after: "new\n", basis: "unread" });
  });

  it("adds an appended save_output's content at the file's end", () => {
    expect(proposedChange("save_output", { file_path: "log.md", content: "two\n", mode: "append" }, file("one\n"))).toMatchObject({ before: "one\n", after: "one\ntwo\n" });
  });

  it("applies an edit_file to the file as it is now, once or everywhere, taking new_string literally", () => {
    expect(proposedChange("edit_file", { file_path: "a.md", old_string: "draft", new_string: "final" }, file("status: draft\n"))).toEqual({
      kind: "diff",
      before: "status: draft\n",
      after: "status: final\n",
      basis: "file",
    });
    expect(proposedChange("edit_file", { file_path: "a.md", old_string: "a", new_string: "$&b", replace_all: true }, file("a a\n"))).toMatchObject({ after: "$&b $&b\n" });
    expect(proposedChange("edit_file", { file_path: "a.md", old_string: "a", new_string: "$&b" }, file("a\n"))).toMatchObject({ after: "$&b\n" });
  });

  it("says when an edit_file would fail as the file is now", () => {
    expect(proposedChange("edit_file", { file_path: "a.md", old_string: "x", new_string: "y" }, file("abc"))).toEqual({ kind: "fails", reason: "The text to replace is not in the file as it is now: the edit would fail." });
    expect(proposedChange("edit_file", { file_path: "a.md", old_string: "a", new_string: "y" }, file("a a"))).toEqual({ kind: "fails", reason: "The text to replace occurs 2 times in the file: the edit would fail." });
    expect(proposedChange("edit_file", { file_path: "a.md", old_string: "a", new_string: "y" }, { exists: false })).toEqual({ kind: "fails", reason: "The file does not exist: the edit would fail." });
  });

  it("shows an edit's own old and new text when the file could not be read", () => {
    expect(proposedChange("edit_file", { file_path: "{bundle-root}/x.md", old_string: "a\n", new_string: "b\n" }, undefined)).toEqual({ kind: "diff", before: "a\n", after: "b\n", basis: "unread" });
  });

  it("has nothing to show for another tool or arguments without their texts", () => {
    expect(proposedChange("run_command", { command: "npm test" }, undefined)).toBeUndefined();
    expect(proposedChange("save_output", { file_path: "a.md" }, undefined)).toBeUndefined();
    expect(proposedChange("edit_file", { file_path: "a.md", old_string: "", new_string: "b" }, file("abc"))).toBeUndefined();
  });
});
