import { describe, expect, it } from "vitest";
import { callFile } from "./call-file.js";

describe("callFile", () => {
  it("places a chat's scratch file and a project's file named plainly or by {project-root}", () => {
    expect(callFile("{session-folder}/notes/brief.md")).toEqual({ space: "session", path: "notes/brief.md" });
    expect(callFile("{project-root}/docs/prd.md")).toEqual({ space: "project", path: "docs/prd.md" });
    expect(callFile("docs/prd.md")).toEqual({ space: "project", path: "docs/prd.md" });
  });

  it("places BMAD's output variables in the folders BMAD's default config gives them", () => {
    expect(callFile("{output_folder}/brainstorm.md")).toEqual({ space: "project", path: "_bmad-output/brainstorm.md" });
    expect(callFile("{planning_artifacts}/prd.md")).toEqual({ space: "project", path: "_bmad-output/planning-artifacts/prd.md" });
    expect(callFile("{implementation_artifacts}/stories/1-1.md")).toEqual({ space: "project", path: "_bmad-output/implementation-artifacts/stories/1-1.md" });
  });

  it("cannot place another variable, an absolute path, a folder or a path that climbs", () => {
    expect(callFile("{bundle-root}/config.yaml")).toBeUndefined();
    expect(callFile("{planning_artifacts}prd.md")).toBeUndefined();
    expect(callFile("/etc/passwd")).toBeUndefined();
    expect(callFile("{session-folder}/")).toBeUndefined();
    expect(callFile("{project-root}/../other/prd.md")).toBeUndefined();
    expect(callFile("docs//prd.md")).toBeUndefined();
    expect(callFile("{constructor}/x.md")).toBeUndefined();
  });
});
