import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { describe, expect, it } from "vitest";
import type { AgentDetail, TurnRecord } from "./eval-client.js";
import { gradeStep, showsItem, type StepRecord } from "./eval-checks.js";
import type { CheckName, Journey } from "./eval-journeys.js";

const base = { session_id: "s", run_id: "r" };
const agent: AgentDetail = { id: "bmm/analyst", name: "Mary", title: "Business Analyst", format: "skill", menu: [{ trigger: "BP", description: "Expert guided brainstorming facilitation", skill: "bmad-brainstorming" }] };
const done = (response: string): RunEvent => ({ ...base, seq: 9, type: "done", response, iterations: 1, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, usage_by_call: [], session_usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
const call = (name: string, args: Record<string, unknown>, result: { success: boolean; error_code?: string; path?: string }): RunEvent[] => [
  { ...base, seq: 1, type: "tool_call", call_id: name, name, arguments: args },
  { ...base, seq: 2, type: "tool_result", call_id: name, name, duration_ms: 1, ...result },
];

function grade(checks: CheckName[], events: RunEvent[], extra: Partial<StepRecord> = {}) {
  const journey: Journey = { agentId: agent.id, name: "workflow", startWithGreeting: true, target: { kind: "skill", skill: "bmad-brainstorming" }, steps: [] };
  const turn: TurnRecord = { sessionId: "s", events };
  return gradeStep({ journey, step: { name: "pick", message: "BP", intent: "", checks }, agent, turn, earlier: [], config: { userName: "Ada", language: "French" }, systemGreeting: undefined, outputFolder: "_bmad-output", files: [], ...extra });
}

describe("gradeStep", () => {
  it("fails tools.in_view for a path the sandbox refused, and tools.known for a tool that does not exist", () => {
    const events = [...call("read_file", { file_path: "../../etc/passwd" }, { success: false, error_code: "PATH_OUTSIDE_ROOT" }), ...call("execute_workflow", {}, { success: false, error_code: "UNKNOWN_TOOL" }), done("?")];
    expect(grade(["tools.in_view", "tools.known"], events).map((result) => [result.check, result.outcome])).toEqual([
      ["tools.in_view", "fail"],
      ["tools.known", "fail"],
    ]);
  });

  it("fails tools.in_view for a host path or a `..` step even when no tool refused it", () => {
    const events = [...call("list_files", { path: "/home" }, { success: true }), done("?")];
    expect(grade(["tools.in_view"], events)[0]?.outcome).toBe("fail");
    expect(grade(["tools.in_view"], [...call("read_file", { file_path: "{project-root}/docs/../x.md" }, { success: true }), done("?")])[0]?.outcome).toBe("fail");
    expect(grade(["tools.in_view"], [...call("read_file", { file_path: "{project-root}/docs/x..md" }, { success: true }), done("?")])[0]?.outcome).toBe("pass");
  });

  it("counts a load only when it succeeded and named the item's own skill", () => {
    expect(grade(["workflow.loaded"], [...call("load_skill", { name: "bmad-prd" }, { success: true }), done("?")])[0]?.outcome).toBe("fail");
    expect(grade(["workflow.loaded"], [...call("load_skill", { name: "bmad-brainstorming" }, { success: false, error_code: "SKILL_NOT_FOUND" }), done("?")])[0]?.outcome).toBe("fail");
    expect(grade(["workflow.loaded"], [...call("load_skill", { name: "bmad-brainstorming" }, { success: true }), done("?")])[0]?.outcome).toBe("pass");
  });

  it("accepts a save into the output folder by the path the tool reports, whatever variable the model wrote", () => {
    const events = [...call("save_output", { file_path: "{planning_artifacts}/brief.md" }, { success: true, path: "{project-root}/_bmad-output/planning-artifacts/brief.md" }), done("Next?")];
    expect(grade(["output.saved", "output.in_folder"], events, { files: [{ path: "_bmad-output/planning-artifacts/brief.md", revision: 1 }] }).map((result) => result.outcome)).toEqual(["pass", "pass"]);
    expect(grade(["output.in_folder"], events, { files: [{ path: "brief.md", revision: 1 }] })[0]).toMatchObject({ outcome: "fail", reason: "files outside _bmad-output/: brief.md" });
  });

  it("grades the checks of a failed turn as errors, the turn itself as failed", () => {
    const events: RunEvent[] = [{ ...base, seq: 1, type: "error", error: { code: "TURN_TIMEOUT", message: "too slow" } }];
    expect(grade(["turn.done", "tools.known", "step.question"], events).map((result) => [result.check, result.outcome])).toEqual([
      ["turn.done", "fail"],
      ["tools.known", "pass"],
      ["step.question", "error"],
    ]);
  });

  it("checks the greeting's language without the menu's lines, which are the install's own text", () => {
    const greeting = "Bonjour Ada ! Je suis Mary, voici ce que je peux faire pour vous :\n1. [BP] Expert guided brainstorming facilitation for the team and you\nQue voulez-vous faire ?";
    expect(grade(["greeting.language", "greeting.user_name", "greeting.menu"], [done(greeting)]).map((result) => result.outcome)).toEqual(["pass", "pass", "pass"]);
    expect(grade(["greeting.language"], [done("Hello! I am Mary. What would you like to do today?")])[0]?.outcome).toBe("fail");
  });
});

describe("showsItem", () => {
  it("finds an item by its code as a word or by the start of its description", () => {
    const item = { trigger: "CB or fuzzy match on product-brief", description: "[CB] Create Brief: A guided experience" };
    expect(showsItem("| 7 | CB | Create Brief |", item)).toBe(true);
    expect(showsItem("7. Create Brief: a guided experience", item)).toBe(true);
    expect(showsItem("7. Brief", item)).toBe(false);
    expect(showsItem("ABCB", item)).toBe(false);
    expect(showsItem("2. *create-project-brief — use task create-doc", { trigger: "create-project-brief", description: "use task create-doc with project-brief-tmpl.yaml" })).toBe(true);
  });
});
