import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { workflowPlace } from "./workflow-place.js";

const calls = (...made: Array<[name: string, args: Record<string, unknown>]>): ChatCompletionMessageParam[] =>
  made.map(([name, args], index) => ({ role: "assistant", content: null, tool_calls: [{ id: `c${index}`, type: "function", function: { name, arguments: JSON.stringify(args) } }] }));

const skills = "{project-root}/.claude/skills/bmad-create-epics-and-stories";

describe("workflowPlace", () => {
  it("names the skill loaded last, the step file read after it and the files changed, the latest last", () => {
    const place = workflowPlace(
      calls(
        ["load_skill", { name: "bmad-create-epics-and-stories" }],
        ["read_file", { file_path: `${skills}/steps/step-01-validate-prerequisites.md` }],
        ["save_output", { file_path: "{planning_artifacts}/epics.md", content: "# Epics" }],
        ["read_file", { file_path: `${skills}/steps/step-02-design-epics.md` }],
        ["edit_file", { file_path: "{planning_artifacts}/notes.md", old_string: "a", new_string: "b" }],
        ["edit_file", { file_path: "{planning_artifacts}/epics.md", old_string: "a", new_string: "b" }],
      ),
    );
    expect(place).toEqual({
      workflow: { kind: "skill", name: "bmad-create-epics-and-stories" },
      step: `${skills}/steps/step-02-design-epics.md`,
      changed: ["{planning_artifacts}/notes.md", "{planning_artifacts}/epics.md"],
    });
  });

  it("takes a workflow file read or preloaded as the workflow, and forgets the last workflow's step when another begins", () => {
    const place = workflowPlace(
      calls(
        ["read_file", { file_path: `${skills}/SKILL.md` }],
        ["read_file", { file_path: `${skills}/steps/step-03-create-stories.md` }],
        ["preload_workflow", { workflow_path: "{project-root}/bmad/bmm/workflows/2-plan-workflows/prd/workflow.yaml" }],
      ),
    );
    expect(place).toEqual({ workflow: { kind: "file", path: "{project-root}/bmad/bmm/workflows/2-plan-workflows/prd/workflow.yaml" }, changed: [] });
  });
});
