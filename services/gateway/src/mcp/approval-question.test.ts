import { describe, expect, it } from "vitest";
import type { PendingCall } from "@agent-orchestrator/shared/wire";
import { approvalAnswer, approvalQuestion } from "./approval-question.js";

const call: PendingCall = {
  approval_id: "a1",
  call_id: "c1",
  tool: "save_output",
  arguments: { file_path: "{project-root}/docs/plan.md", content: "the draft", overwrite: true, lines: 3, options: { mode: "x" } },
  reason: "save_output is set to ask in this project",
  expires_at: "2030-01-01T00:00:00.000Z",
};

describe("the question about a call that waits", () => {
  it("names the tool, why it waits and its arguments, and offers approve or reject, a message, and a field for each flat argument filled with the model's value", () => {
    const question = approvalQuestion(call);
    expect(question.message).toContain("save_output");
    expect(question.message).toContain("save_output is set to ask in this project");
    expect(question.message).toContain('"file_path": "{project-root}/docs/plan.md"');
    expect(question.requestedSchema.required).toEqual(["decision"]);
    expect(question.requestedSchema.properties).toMatchObject({
      decision: { type: "string", enum: ["approve", "reject"] },
      message: { type: "string", maxLength: 4_000 },
      arg_file_path: { type: "string", default: "{project-root}/docs/plan.md" },
      arg_content: { type: "string", default: "the draft" },
      arg_overwrite: { type: "boolean", default: true },
      arg_lines: { type: "integer", default: 3 },
    });
    // nested values cannot be a form field: they stay as the model sent them
    expect(question.requestedSchema.properties).not.toHaveProperty("arg_options");
  });

  it("offers no argument to change when they came cut, and says why it asks again", () => {
    const question = approvalQuestion({ ...call, arguments_truncated: true }, "Your answer was not taken: lines must be a number.");
    expect(Object.keys(question.requestedSchema.properties).sort()).toEqual(["decision", "message"]);
    expect(question.message.startsWith("Your answer was not taken: lines must be a number.")).toBe(true);
    expect(question.message).toContain("(long values cut)");
  });
});

describe("the user's answer", () => {
  it("approves with the model's arguments when no field changed, fields left empty included", () => {
    expect(approvalAnswer(call, { action: "accept", content: { decision: "approve", arg_content: "", arg_file_path: "{project-root}/docs/plan.md" } })).toEqual({
      decided: { decision: "approve" },
    });
  });

  it("approves with the changed values over the model's arguments, and a message", () => {
    expect(approvalAnswer(call, { action: "accept", content: { decision: "approve", arg_content: "mine", arg_lines: 4, message: "  shorter  " } })).toEqual({
      decided: { decision: "approve", arguments: { ...call.arguments, content: "mine", lines: 4 }, message: "shorter" },
    });
  });

  it("rejects with the message, ignoring changed values; a declined form rejects; a dismissed one decides nothing", () => {
    expect(approvalAnswer(call, { action: "accept", content: { decision: "reject", message: "not now", arg_content: "x" } })).toEqual({ decided: { decision: "reject", message: "not now" } });
    expect(approvalAnswer(call, { action: "decline" })).toEqual({ decided: { decision: "reject" } });
    expect(approvalAnswer(call, { action: "cancel" })).toEqual({ undecided: true });
  });

  it("asks again for an answer without a decision or with a value of the wrong kind", () => {
    expect(approvalAnswer(call, { action: "accept", content: { message: "hm" } })).toEqual({ invalid: "Choose approve or reject." });
    expect(approvalAnswer(call, { action: "accept", content: { decision: "approve", arg_lines: "four" } })).toEqual({ invalid: "lines must be a number." });
  });
});
