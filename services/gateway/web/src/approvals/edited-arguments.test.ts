import { describe, expect, it } from "vitest";
import { argumentsText, parseEditedArguments } from "./edited-arguments.js";

describe("parseEditedArguments", () => {
  it("takes a JSON object with the text arguments the tool needs", () => {
    const text = argumentsText({ file_path: "{session-folder}/notes.md", content: "# Notes\n" });
    expect(parseEditedArguments("save_output", text)).toEqual({ ok: true, value: { file_path: "{session-folder}/notes.md", content: "# Notes\n" } });
    expect(parseEditedArguments("run_command", '{"command": "npm test"}')).toEqual({ ok: true, value: { command: "npm test" } });
  });

  it("says what is wrong with text that is not JSON, or JSON that is not an object", () => {
    const broken = parseEditedArguments("save_output", '{"file_path": "a.md",');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.error).toMatch(/^Not valid JSON: /);
    expect(parseEditedArguments("save_output", '["a.md"]')).toEqual({ ok: false, error: "The arguments must be a JSON object: { … }" });
    expect(parseEditedArguments("save_output", "null")).toEqual({ ok: false, error: "The arguments must be a JSON object: { … }" });
  });

  it("names the text arguments a known tool cannot run without", () => {
    expect(parseEditedArguments("save_output", '{"file_path": "a.md"}')).toEqual({ ok: false, error: 'save_output needs "content" as text' });
    expect(parseEditedArguments("edit_file", '{"file_path": "a.md", "old_string": 3}')).toEqual({ ok: false, error: 'edit_file needs "old_string", "new_string" as text' });
    expect(parseEditedArguments("edit_file", '{"file_path": "a.md", "old_string": "", "new_string": "b"}')).toEqual({ ok: false, error: 'edit_file needs a non-empty "old_string"' });
    expect(parseEditedArguments("run_command", "{}")).toEqual({ ok: false, error: 'run_command needs "command" as text' });
  });

  it("leaves the arguments of another tool to the orchestrator's check, and an inherited name counts as missing", () => {
    expect(parseEditedArguments("some_tool", '{"x": 1}')).toEqual({ ok: true, value: { x: 1 } });
    expect(parseEditedArguments("run_command", '{"__proto__": {"command": "rm -rf /"}}')).toEqual({ ok: false, error: 'run_command needs "command" as text' });
  });
});
