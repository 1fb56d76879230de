import { describe, expect, it } from "vitest";
import type { ConversationMessage } from "@agent-orchestrator/shared/wire";
import { chatActivity, maxActivityEntries } from "./chat-activity.js";

const call = (id: string, name: string, args: Record<string, unknown> | string) => ({
  id,
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});
const result = (id: string, body: Record<string, unknown> | string): ConversationMessage => ({
  role: "tool",
  tool_call_id: id,
  content: typeof body === "string" ? body : JSON.stringify(body),
});
const calls = (...toolCalls: ReturnType<typeof call>[]): ConversationMessage => ({ role: "assistant", content: null, tool_calls: toolCalls });

describe("chatActivity", () => {
  it("lists the workflows and skills that loaded, and the files saved, edited and written by scripts, once each in order", () => {
    const messages: ConversationMessage[] = [
      { role: "user", content: "*product-brief" },
      calls(call("c1", "preload_workflow", { workflow_path: "{project-root}/_bmad/bmm/workflows/brief/workflow.yaml" }), call("c2", "load_skill", { name: "bmad-prd" })),
      result("c1", { success: true, workflow: "…" }),
      result("c2", { success: true, instructions: "…" }),
      calls(
        call("c3", "save_output", { file_path: "{planning_artifacts}/brief.md", content: "x" }),
        call("c4", "edit_file", { file_path: "{project-root}/docs/a.md", old_string: "a", new_string: "b" }),
        call("c5", "run_script", { command: "uv run x.py" }),
      ),
      result("c3", { success: true, path: "{project-root}/_bmad-output/planning-artifacts/brief.md", size: 1, revision: 1 }),
      result("c4", { success: true, path: "{project-root}/docs/a.md", size: 1, revision: 2 }),
      // a failed script still keeps what it wrote
      result("c5", { success: false, error: { code: "SCRIPT_FAILED", message: "exit 1" }, exit_code: 1, files_written: ["{session-folder}/run/log.md", "{project-root}/docs/a.md"] }),
      calls(call("c6", "save_output", { file_path: "{planning_artifacts}/brief.md", content: "y" }), call("c7", "load_skill", { name: "bmad-prd" })),
      result("c6", { success: true, path: "{project-root}/_bmad-output/planning-artifacts/brief.md", size: 1, revision: 2 }),
      result("c7", { success: true }),
      { role: "assistant", content: "Done." },
    ];
    expect(chatActivity(messages)).toEqual({
      workflows: ["{project-root}/_bmad/bmm/workflows/brief/workflow.yaml", "bmad-prd"],
      files_written: ["{project-root}/_bmad-output/planning-artifacts/brief.md", "{project-root}/docs/a.md", "{session-folder}/run/log.md"],
    });
  });

  it("leaves out what failed, was never answered or is malformed", () => {
    const messages: ConversationMessage[] = [
      calls(
        call("f1", "load_skill", { name: "no-such-skill" }),
        call("f2", "save_output", { file_path: "_bmad/x.md", content: "x" }),
        call("f3", "save_output", { file_path: "{session-folder}/late.md", content: "x" }),
        call("f4", "preload_workflow", "{not json"),
      ),
      result("f1", { success: false, error: { code: "SKILL_NOT_FOUND", message: "no" } }),
      result("f2", { success: false, error: { code: "PROTECTED_PATH", message: "no" } }),
      result("f4", { success: true }),
      { role: "assistant", content: "x", tool_calls: [{ id: 1 }, "junk"] },
    ];
    expect(chatActivity(messages)).toEqual({ workflows: [], files_written: [] });
  });

  it("reads a cut result by its start: a long skill counts, a long script's files are found", () => {
    const cut = (text: string) => `${text.slice(0, 200)}\n[... 5000 bytes omitted ...]\n${text.slice(-50)}`;
    const messages: ConversationMessage[] = [
      calls(call("l1", "load_skill", { name: "bmad-long" }), call("l2", "run_script", { command: "uv run y.py" })),
      result("l1", cut(JSON.stringify({ success: true, instructions: "z".repeat(10_000) }))),
      result("l2", cut(JSON.stringify({ success: true, exit_code: 0, files_written: ["{session-folder}/out.md"], stdout: "s".repeat(10_000) }))),
    ];
    expect(chatActivity(messages)).toEqual({ workflows: ["bmad-long"], files_written: ["{session-folder}/out.md"] });
  });

  it("keeps at most maxActivityEntries of each", () => {
    const paths = Array.from({ length: maxActivityEntries + 5 }, (_unused, index) => `{session-folder}/f${index}.md`);
    const messages: ConversationMessage[] = [calls(call("s", "run_script", { command: "uv run z.py" })), result("s", { success: true, files_written: paths })];
    expect(chatActivity(messages).files_written).toEqual(paths.slice(0, maxActivityEntries));
  });
});
