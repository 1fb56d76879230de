import { describe, expect, it } from "vitest";
import { writtenFileTarget } from "./written-file-link.js";

describe("writtenFileTarget", () => {
  it("links a project file into the Files view of the chat's project", () => {
    expect(writtenFileTarget("p-1", "{project-root}/docs/my brief.md")).toEqual({ kind: "project", href: "#/projects/p-1/files/docs/my%20brief.md", path: "docs/my brief.md" });
  });

  it("opens a scratch file of the chat in the chat's files", () => {
    expect(writtenFileTarget("p-1", "{session-folder}/notes.md")).toEqual({ kind: "session", path: "notes.md" });
  });

  it("leaves other roots and climbing paths as plain text", () => {
    expect(writtenFileTarget("p-1", "{bundle-root}/agents/a.md")).toEqual({ kind: "none" });
    expect(writtenFileTarget("p-1", "{project-root}/../etc/passwd")).toEqual({ kind: "none" });
    expect(writtenFileTarget("p-1", "{project-root}/")).toEqual({ kind: "none" });
  });
});
