import { describe, expect, it } from "vitest";
import { AppError, type ToolResult } from "@agent-orchestrator/shared";
import { fileToLoad, runCriticalActions, substituteVariables } from "./critical-actions.js";

describe("fileToLoad", () => {
  it("finds the file of a v6 early 'Load into memory' action", () => {
    expect(fileToLoad("Load into memory {bundle-root}/config.yaml and set variables: project_name, user_name")).toBe(
      "{bundle-root}/config.yaml",
    );
  });

  it("finds the file of a v6 compiled activation step", () => {
    expect(fileToLoad("🚨 IMMEDIATE ACTION REQUIRED - BEFORE ANY OUTPUT:\n - Load and read {project-root}/bmad/bmm/config.yaml NOW")).toBe(
      "{project-root}/bmad/bmm/config.yaml",
    );
  });

  it("leaves instructions that load nothing alone", () => {
    expect(fileToLoad("Remember the user's name is {user_name}")).toBeUndefined();
    expect(fileToLoad("Load persona from this current agent file (already in context)")).toBeUndefined();
  });
});

describe("runCriticalActions", () => {
  const config = "project_name: Demo\nuser_name: Ada\ncommunication_language: French\noutput_folder: '{project-root}/docs'\n";
  const reader = (files: Record<string, string>) => async (path: string): Promise<ToolResult> =>
    path in files ? { success: true, path, content: files[path] } : { success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } };

  it("loads the config, maps output_folder to the session folder and substitutes the other instructions", async () => {
    const start = await runCriticalActions(
      [
        "Load into memory {bundle-root}/config.yaml and set variables: project_name, output_folder, user_name",
        "Remember the user's name is {user_name}",
        "ALWAYS communicate in {communication_language}",
      ],
      reader({ "{bundle-root}/config.yaml": config }),
    );
    expect(start.files).toEqual([{ path: "{bundle-root}/config.yaml", content: config }]);
    expect(start.variables).toMatchObject({ user_name: "Ada", output_folder: "{session-folder}", project_name: "Demo" });
    expect(start.instructions).toEqual(["Remember the user's name is Ada", "ALWAYS communicate in French"]);
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
