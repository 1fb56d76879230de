import { describe, expect, it } from "vitest";
import { coreModuleFolder, isInstallTreeName, isSkillHostName, mapOutputVariables } from "./install-layout.js";

describe("install layout names", () => {
  it("knows every release's BMAD folder", () => {
    for (const name of ["_bmad", "bmad", ".bmad-core", ".bmad-2d-phaser-game-dev"]) expect(isInstallTreeName(name)).toBe(true);
    for (const name of ["docs", ".git", "_bmad-output", ".claude"]) expect(isInstallTreeName(name)).toBe(false);
  });

  it("finds the core module of every release's tree", () => {
    expect(["_bmad", "bmad", ".bmad-core", ".bmad-2d-phaser-game-dev"].map(coreModuleFolder)).toEqual(["_bmad/core", "bmad/core", ".bmad-core", ".bmad-core"]);
  });

  it("takes any top-level dot folder but .git and the BMAD trees as a skill host", () => {
    for (const name of [".claude", ".agents", ".cursor", ".qwen"]) expect(isSkillHostName(name)).toBe(true);
    for (const name of [".git", ".bmad-core", "src", "."]) expect(isSkillHostName(name)).toBe(false);
  });
});

describe("mapOutputVariables", () => {
  it("maps the output folder and its artifacts folders into the session folder, keeping sub-folders", () => {
    const mapped = mapOutputVariables({
      output_folder: "_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts",
      project_knowledge: "{project-root}/docs",
      user_name: "Ada",
    });
    expect(mapped).toEqual({
      output_folder: "{session-folder}",
      planning_artifacts: "{session-folder}/planning-artifacts",
      implementation_artifacts: "{session-folder}/implementation-artifacts",
      project_knowledge: "{project-root}/docs",
      user_name: "Ada",
    });
  });

  it("reads an unexpanded {output_folder} left by an older installer as the output folder", () => {
    const mapped = mapOutputVariables({ output_folder: "{project-root}/_bmad-output", planning_artifacts: "{output_folder}/planning" });
    expect(mapped["planning_artifacts"]).toBe("{session-folder}/planning");
    const older = mapOutputVariables({ planning_artifacts: "{project-root}/{output_folder}/planning-artifacts", user_name: "Ada" });
    expect(older).toEqual({ planning_artifacts: "{session-folder}/planning-artifacts", user_name: "Ada" });
  });

  it("keeps only the last folder name of an artifacts folder outside the output folder", () => {
    expect(mapOutputVariables({ output_folder: "out", test_artifacts: "/srv/elsewhere/tests" })["test_artifacts"]).toBe("{session-folder}/tests");
  });
});
