import { describe, expect, it } from "vitest";
import { coreModuleFolder, isInstallPlace, isInstallTreeName, isSkillHostName, mapOutputVariables } from "./install-layout.js";

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
  it("resolves the output folder and its artifacts folders to the paths BMAD names in the project", () => {
    const mapped = mapOutputVariables({
      output_folder: "_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts",
      project_knowledge: "{project-root}/docs",
      user_name: "Ada",
    });
    expect(mapped).toEqual({
      output_folder: "{project-root}/_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts",
      project_knowledge: "{project-root}/docs",
      user_name: "Ada",
    });
  });

  it("keeps a 4.x project's docs folder, and starts the paths with the root the caller names", () => {
    expect(mapOutputVariables({ output_folder: "docs", test_artifacts: "./docs/qa" })).toEqual({ output_folder: "{project-root}/docs", test_artifacts: "{project-root}/docs/qa" });
    expect(mapOutputVariables({ output_folder: "docs" }, "/tmp/p1")).toEqual({ output_folder: "/tmp/p1/docs" });
  });

  it("reads an unexpanded {output_folder} left by an older installer as the output folder", () => {
    const mapped = mapOutputVariables({ output_folder: "{project-root}/_bmad-output", planning_artifacts: "{output_folder}/planning" });
    expect(mapped["planning_artifacts"]).toBe("{project-root}/_bmad-output/planning");
    const older = mapOutputVariables({ planning_artifacts: "{project-root}/{output_folder}/planning-artifacts", user_name: "Ada" });
    expect(older).toEqual({ planning_artifacts: "{project-root}/_bmad-output/planning-artifacts", user_name: "Ada" });
  });

  it("keeps a value outside the project inside it, under the output folder", () => {
    expect(mapOutputVariables({ output_folder: "out", test_artifacts: "/srv/elsewhere/tests" })["test_artifacts"]).toBe("{project-root}/out/tests");
    expect(mapOutputVariables({ output_folder: "/home/ada/app/_bmad-output", planning_artifacts: "/home/ada/app/_bmad-output/qa/plans" })).toEqual({
      output_folder: "{project-root}/_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/qa/plans",
    });
    expect(mapOutputVariables({ output_folder: "../elsewhere", test_artifacts: "{project-root}/../tests" })).toEqual({
      output_folder: "{project-root}/_bmad-output",
      test_artifacts: "{project-root}/_bmad-output/tests",
    });
  });

  it("never resolves an output variable into an installed BMAD tree or a dot folder", () => {
    expect(mapOutputVariables({ output_folder: "_bmad/out", test_artifacts: ".git/hooks" })).toEqual({
      output_folder: "{project-root}/_bmad-output",
      test_artifacts: "{project-root}/_bmad-output/hooks",
    });
  });
});

describe("isInstallPlace", () => {
  it("names BMAD's own places at the project's top, installed or not, and nothing of the project's own", () => {
    for (const path of ["_bmad/bmm/config.yaml", "bmad/core/x.md", ".bmad-core/tasks/t.md", ".claude/skills/x/SKILL.md", ".cursor"]) expect(isInstallPlace(path), path).toBe(true);
    for (const path of ["_bmad-output/planning-artifacts/prd.md", "docs/bmad/notes.md", ".git/config", "src/_bmad.ts"]) expect(isInstallPlace(path), path).toBe(false);
  });
});
