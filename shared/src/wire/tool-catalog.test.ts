import { describe, expect, it } from "vitest";
import { RunCommandResult, toolCatalog, toolDefinitionsForModel } from "./tool-catalog.js";

describe("run_command in the tool catalogue", () => {
  it("shows the model a command line and an optional timeout in milliseconds", () => {
    const [definition] = toolDefinitionsForModel(["run_command"]);
    expect(definition?.function.parameters).toMatchObject({
      type: "object",
      required: ["command"],
      additionalProperties: false,
      properties: { command: { type: "string", minLength: 1, maxLength: 16384 }, timeout_ms: { type: "integer", minimum: 1000, maximum: 86_400_000 } },
    });
  });

  it("refuses an empty command, a NUL in it, and a timeout under a second", () => {
    const args = toolCatalog.run_command.args;
    expect(args.safeParse({ command: "git status" }).success).toBe(true);
    for (const bad of [{ command: "" }, { command: "git status\0rm -rf /" }, { command: "npm test", timeout_ms: 10 }, { command: "ls", cwd: "/" }]) {
      expect(args.safeParse(bad).success).toBe(false);
    }
  });

  it("answers with the exit code, both streams, truncated and the duration, and an error when it did not succeed", () => {
    const failed = { success: false, exit_code: null, stdout: "", stderr: "", truncated: false, duration_ms: 1500, error: { code: "COMMAND_TIMEOUT", message: "stopped" } };
    expect(RunCommandResult.parse(failed)).toEqual(failed);
    expect(RunCommandResult.safeParse({ success: true, exit_code: 0, stdout: "", stderr: "" }).success).toBe(false);
  });
});

describe("toolDefinitionsForModel", () => {
  it("gives every turn offering the same tools one shared list, which none of them can change", () => {
    const list = toolDefinitionsForModel(["read_file", "list_files"]);
    expect(toolDefinitionsForModel(["read_file", "list_files"])).toBe(list);
    expect(toolDefinitionsForModel(["list_files", "read_file"])).not.toBe(list);
    expect(list.map((tool) => tool.function.name)).toEqual(["read_file", "list_files"]);
    expect(() => list.push(list[0]!)).toThrow(TypeError);
  });
});
