import { describe, expect, it } from "vitest";
import { projectOutputFolders } from "./output-folders.js";

describe("projectOutputFolders", () => {
  it("keeps the folders a 6.x config names inside the project", () => {
    const folders = projectOutputFolders("/p", {
      output_folder: "{project-root}/_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      implementation_artifacts: "{output_folder}/implementation-artifacts",
    });
    expect(folders).toEqual({
      output_folder: "/p/_bmad-output",
      planning_artifacts: "/p/_bmad-output/planning-artifacts",
      implementation_artifacts: "/p/_bmad-output/implementation-artifacts",
    });
  });

  it("keeps a 4.x-style docs folder, and puts values that leave the project under the output folder", () => {
    const folders = projectOutputFolders("/p", { output_folder: "docs", test_artifacts: "/srv/elsewhere/tests", odd_artifacts: "../../x" });
    expect(folders).toEqual({ output_folder: "/p/docs", test_artifacts: "/p/docs/tests", odd_artifacts: "/p/docs/x" });
  });

  it("falls back to _bmad-output when the config leaves output_folder out or unexpanded", () => {
    expect(projectOutputFolders("/p", {})).toEqual({ output_folder: "/p/_bmad-output" });
    expect(projectOutputFolders("/p", { output_folder: "{output_folder}" })).toEqual({ output_folder: "/p/_bmad-output" });
  });
});
