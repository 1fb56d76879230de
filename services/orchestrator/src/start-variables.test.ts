import { describe, expect, it } from "vitest";
import { startVariables } from "./start-variables.js";

describe("startVariables", () => {
  it("gives an agent with no config the defaults BMAD's activation steps need", () => {
    expect(startVariables({})).toEqual({
      output_folder: "{session-folder}",
      user_name: "User",
      communication_language: "English",
      document_output_language: "English",
    });
  });

  it("keeps the values a config gives and maps every output variable into the session folder", () => {
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
      output_folder: "{session-folder}",
      planning_artifacts: "{session-folder}/planning-artifacts",
      project_knowledge: "{project-root}/docs",
    });
  });

  it("reads an empty or unexpanded value as missing", () => {
    expect(startVariables({ user_name: " ", communication_language: "{communication_language}" })).toMatchObject({
      user_name: "User",
      communication_language: "English",
    });
  });

  it("leaves variables the tool-runner already mapped as they are", () => {
    const mapped = { output_folder: "{session-folder}", planning_artifacts: "{session-folder}/planning-artifacts", user_name: "Ada" };
    expect(startVariables(mapped)).toMatchObject(mapped);
  });
});
