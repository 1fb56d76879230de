import { describe, expect, it } from "vitest";
import { withAttachedFiles } from "./attached-files-note.js";

describe("withAttachedFiles", () => {
  it("leaves a message without attachments as typed", () => {
    expect(withAttachedFiles("hello", undefined)).toBe("hello");
    expect(withAttachedFiles("hello", [])).toBe("hello");
  });

  it("names each file by its virtual path after the message, with its Markdown form when there is one", () => {
    expect(withAttachedFiles("Summarise these", [{ path: "inputs/brief.pdf", markdown_path: "inputs/brief.pdf.md" }, { path: "docs/notes.md" }])).toBe(
      [
        "Summarise these",
        "",
        "Attached files (read them with read_file when you need them):",
        "- {project-root}/inputs/brief.pdf — as Markdown: {project-root}/inputs/brief.pdf.md",
        "- {project-root}/docs/notes.md",
      ].join("\n"),
    );
  });

  it("names a file kept in the chat's scratch space by {session-folder}, its Markdown form too", () => {
    expect(withAttachedFiles("Read it", [{ path: "inputs/brief.pdf", markdown_path: "inputs/brief.pdf.md", folder: "session" }, { path: "src/app.js" }])).toBe(
      [
        "Read it",
        "",
        "Attached files (read them with read_file when you need them):",
        "- {session-folder}/inputs/brief.pdf — as Markdown: {session-folder}/inputs/brief.pdf.md",
        "- {project-root}/src/app.js",
      ].join("\n"),
    );
  });
});
