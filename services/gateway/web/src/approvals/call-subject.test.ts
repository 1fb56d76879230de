import { describe, expect, it } from "vitest";
import { callSubject } from "./call-subject.js";

describe("callSubject", () => {
  it("is the command line of a command and the file of a write", () => {
    expect(callSubject("run_command", { command: "git push", file_path: "x" })).toBe("git push");
    expect(callSubject("run_script", { command: "uv run memlog.py init" })).toBe("uv run memlog.py init");
    expect(callSubject("save_output", { file_path: "{planning_artifacts}/prd.md", content: "…" })).toBe("{planning_artifacts}/prd.md");
    expect(callSubject("edit_file", { file_path: "docs/a.md", old_string: "a", new_string: "b" })).toBe("docs/a.md");
  });

  it("is nothing for arguments without one, or with one that is not text", () => {
    expect(callSubject("run_command", {})).toBeUndefined();
    expect(callSubject("save_output", { file_path: 3 })).toBeUndefined();
    expect(callSubject("save_output", { file_path: "" })).toBeUndefined();
  });
});
