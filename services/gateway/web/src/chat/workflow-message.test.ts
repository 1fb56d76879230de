import { describe, expect, it } from "vitest";
import { workflowMessage } from "./workflow-message.js";

const step = { skill: "bmad-product-brief", code: "CB", name: "Create Brief" };

describe("the message that starts a recommended workflow", () => {
  it("names the agent's menu entry for the workflow's skill", () => {
    expect(workflowMessage(step, [{ trigger: "*product-brief", description: "Brief", skill: "bmad-product-brief" }])).toBe("Run *product-brief: Create Brief");
  });

  it("falls back to the catalogue's code when no menu entry runs that skill", () => {
    expect(workflowMessage(step, [{ trigger: "BP", description: "Brainstorm", skill: "bmad-brainstorming" }])).toBe("Run CB: Create Brief");
    expect(workflowMessage(step, [])).toBe("Run CB: Create Brief");
  });
});
