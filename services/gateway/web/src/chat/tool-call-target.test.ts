import { describe, expect, it } from "vitest";
import { sessionRelativePath, toolCallTarget } from "./tool-call-target.js";

describe("toolCallTarget", () => {
  it("reads file_path, path or workflow_path, in that order", () => {
    expect(toolCallTarget({ file_path: "{session-folder}/a.md", path: "b" })).toBe("{session-folder}/a.md");
    expect(toolCallTarget({ path: "{bundle-root}" })).toBe("{bundle-root}");
    expect(toolCallTarget({ workflow_path: "{bundle-root}/workflows/x/workflow.yaml" })).toBe("{bundle-root}/workflows/x/workflow.yaml");
  });

  it("names a skill, a script's command line or a subagent's skill", () => {
    expect(toolCallTarget({ name: "bmad-prd" })).toBe("bmad-prd");
    expect(toolCallTarget({ command: "uv run {project-root}/_bmad/scripts/memlog.py init" })).toBe("uv run {project-root}/_bmad/scripts/memlog.py init");
    expect(toolCallTarget({ prompt: "Summarise the brief", skill: "bmad-review" })).toBe("bmad-review");
  });

  it("ignores missing, empty, non-string and inherited values", () => {
    expect(toolCallTarget({})).toBeUndefined();
    expect(toolCallTarget({ file_path: "", path: 3 })).toBeUndefined();
    expect(toolCallTarget(Object.create({ file_path: "inherited" }) as Record<string, unknown>)).toBeUndefined();
  });
});

describe("sessionRelativePath", () => {
  it("strips the session folder, and refuses paths elsewhere", () => {
    expect(sessionRelativePath("{session-folder}/notes/brief.md")).toBe("notes/brief.md");
    expect(sessionRelativePath("{bundle-root}/config.yaml")).toBeUndefined();
    expect(sessionRelativePath("{session-folder}/")).toBeUndefined();
  });
});
