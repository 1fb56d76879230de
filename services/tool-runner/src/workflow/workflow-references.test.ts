import { describe, expect, it } from "vitest";
import { findWorkflowReferences } from "./workflow-references.js";

describe("findWorkflowReferences", () => {
  it("finds the engine named by the instructions, or by the workflow.yaml", () => {
    expect(findWorkflowReferences("<critical>governed by: {project-root}/bmad/core/tasks/workflow.xml</critical>").engine).toBe("workflow.xml");
    expect(findWorkflowReferences("described in {core-root}/tasks/workflow.md").engine).toBe("workflow.md");
    expect(findWorkflowReferences("no engine named here").engine).toBeUndefined();
    expect(findWorkflowReferences("", "engine: bmad/core/tasks/workflow.md").engine).toBe("workflow.md");
  });

  it("notices <elicit-required>", () => {
    expect(findWorkflowReferences("<step n='2'><elicit-required/></step>").elicit).toBe(true);
    expect(findWorkflowReferences("no elicitation here").elicit).toBe(false);
  });

  it("takes invoke-workflow targets from the path attribute or the body, once each", () => {
    const text = `
<invoke-workflow path="{project-root}/bmad/bmm/workflows/workflow-status">
  <param>mode: validate</param>
</invoke-workflow>
<invoke-workflow path="{project-root}/bmad/bmm/workflows/workflow-status"></invoke-workflow>
<invoke-workflow path="{core_brainstorming}" data="{project_context}" />
<invoke-workflow>{installed_path}/sub/workflow.yaml</invoke-workflow>`;
    expect(findWorkflowReferences(text).workflows).toEqual([
      "{project-root}/bmad/bmm/workflows/workflow-status",
      "{core_brainstorming}",
      "{installed_path}/sub/workflow.yaml",
    ]);
  });

  it("takes invoke-task targets from the body text, including plain bmad/ paths", () => {
    const text = `
<invoke-task halt="true">{project-root}/bmad/core/tasks/adv-elicit.xml</invoke-task>
<invoke-task>Validate against checklist at {installed_path}/checklist.md using bmad/core/tasks/validate-workflow.xml</invoke-task>`;
    expect(findWorkflowReferences(text).tasks).toEqual([
      "{project-root}/bmad/core/tasks/adv-elicit.xml",
      "{installed_path}/checklist.md",
      "bmad/core/tasks/validate-workflow.xml",
    ]);
  });
});
