import { describe, expect, it } from "vitest";
import { startVariables } from "./start-variables.js";

describe("startVariables", () => {
  it("gives an agent with no config the defaults BMAD's activation steps need, writing into the project", () => {
    expect(startVariables({})).toEqual({
      output_folder: "{project-root}/_bmad-output",
      user_name: "User",
      communication_language: "English",
      document_output_language: "English",
    });
  });

  it("keeps the values a config gives and resolves every output variable to the path BMAD names in the project", () => {
    const variables = startVariables({
      user_name: "Ada",
      communication_language: "French",
      output_folder: "_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      project_knowledge: "{project-root}/docs",
    });
    expect(variables).toEqual({
      user_name: "Ada",
      communication_language: "French",
      document_output_language: "French",
      output_folder: "{project-root}/_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      project_knowledge: "{project-root}/docs",
    });
  });

  it("keeps a 4.x project's docs folder where BMAD names it", () => {
    expect(startVariables({ output_folder: "docs" })["output_folder"]).toBe("{project-root}/docs");
  });

  it("reads an empty or unexpanded value as missing", () => {
    expect(startVariables({ user_name: " ", communication_language: "{communication_language}" })).toMatchObject({
      user_name: "User",
      communication_language: "English",
    });
  });

  it("leaves variables the tool-runner already resolved as they are", () => {
    const mapped = { output_folder: "{project-root}/docs", planning_artifacts: "{project-root}/docs/planning", user_name: "Ada" };
    expect(startVariables(mapped)).toMatchObject(mapped);
  });
});
