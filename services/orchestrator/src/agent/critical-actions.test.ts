import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type ToolResult } from "@agent-orchestrator/shared/wire";
import { runCriticalActions, substituteVariables } from "./critical-actions.js";

describe("runCriticalActions", () => {
  const config = "project_name: Demo\nuser_name: Ada\ncommunication_language: French\noutput_folder: '{project-root}/docs'\n";
  const reader = (files: Record<string, string>) => async (path: string): Promise<ToolResult> =>
    path in files ? { success: true, path, content: files[path] } : { success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } };

  it("loads the config, resolves output_folder inside the project and substitutes the other instructions", async () => {
    const start = await runCriticalActions(
      [
        "Load into memory {bundle-root}/config.yaml and set variables: project_name, output_folder, user_name",
        "Remember the user's name is {user_name}",
        "ALWAYS communicate in {communication_language}",
      ],
      reader({ "{bundle-root}/config.yaml": config }),
    );
    expect(start.files).toEqual([{ path: "{bundle-root}/config.yaml", content: config }]);
    expect(start.variables).toMatchObject({ user_name: "Ada", output_folder: "{project-root}/docs", project_name: "Demo", communication_language: "French" });
    expect(start.instructions).toEqual(["Remember the user's name is Ada", "ALWAYS communicate in French"]);
  });

  it("loads a 4.x core-config.yaml once, exposing its top-level values and keeping the nested ones in the loaded file", async () => {
    const coreConfig = "markdownExploder: true\nprd:\n  prdFile: docs/prd.md\ndevStoryLocation: docs/stories\n";
    const start = await runCriticalActions(
      [
        "STEP 1: Read THIS ENTIRE FILE - it contains your complete persona definition",
        "STEP 3: Load and read `.bmad-core/core-config.yaml` (project configuration) before any greeting",
        "Load resources only when needed - never pre-load (Exception: Read `.bmad-core/core-config.yaml` during activation)",
      ],
      reader({ "{project-root}/.bmad-core/core-config.yaml": coreConfig }),
    );
    expect(start.files).toEqual([{ path: "{project-root}/.bmad-core/core-config.yaml", content: coreConfig }]);
    expect(start.variables).toMatchObject({ markdownExploder: "true", devStoryLocation: "docs/stories" });
    expect(start.variables).not.toHaveProperty("prd");
    expect(start.instructions).toEqual([
      "STEP 1: Read THIS ENTIRE FILE - it contains your complete persona definition",
      "Load resources only when needed - never pre-load (Exception: Read `.bmad-core/core-config.yaml` during activation)",
    ]);
  });

  it("resolves a 6.0.x config's output variables to the paths BMAD names in the project and fills in what the installer left out", async () => {
    const moduleConfig = [
      "project_name: demo",
      'planning_artifacts: "{project-root}/{output_folder}/planning-artifacts"',
      'implementation_artifacts: "{project-root}/{output_folder}/implementation-artifacts"',
      'project_knowledge: "{project-root}/docs"',
      "user_name: Ada",
    ].join("\n");
    const start = await runCriticalActions(
      [
        "🚨 IMMEDIATE ACTION REQUIRED - BEFORE ANY OUTPUT:\n - Load and read {project-root}/_bmad/bmm/config.yaml NOW\n - Store ALL fields as session variables",
        "Show greeting using {user_name} from config, communicate in {communication_language}",
      ],
      reader({ "{project-root}/_bmad/bmm/config.yaml": moduleConfig }),
    );
    expect(start.variables).toEqual({
      project_name: "demo",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts",
      project_knowledge: "{project-root}/docs",
      user_name: "Ada",
      output_folder: "{project-root}/_bmad-output",
      communication_language: "English",
      document_output_language: "English",
    });
    expect(start.instructions).toEqual(["Show greeting using Ada from config, communicate in English"]);
  });

  it("stops with AGENT_INIT_FAILED naming the virtual path when a critical file is missing", async () => {
    const failure = runCriticalActions(["Load into memory {bundle-root}/missing.yaml and set variables: a"], reader({}));
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({ code: "AGENT_INIT_FAILED", message: expect.stringContaining("{bundle-root}/missing.yaml") });
  });

  it("stops when a critical YAML file is not valid YAML", async () => {
    const failure = runCriticalActions(["Load into memory {bundle-root}/config.yaml"], reader({ "{bundle-root}/config.yaml": "a: [unclosed" }));
    await expect(failure).rejects.toMatchObject({ code: "AGENT_INIT_FAILED" });
  });
});

describe("substituteVariables", () => {
  it("keeps unknown variables and ignores inherited property names", () => {
    expect(substituteVariables("{user_name} {constructor} {unknown}", { user_name: "Ada" })).toBe("Ada {constructor} {unknown}");
  });
});
