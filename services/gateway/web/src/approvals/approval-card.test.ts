// @vitest-environment jsdom
import * as JsDiff from "diff";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { ApprovalDecisionBody, ApprovalView } from "@agent-orchestrator/shared/wire";
import { ApiError } from "../api/api-error.js";
import { ApprovalCard, type ApprovalCardOptions, type ShownApproval } from "./approval-card.js";
import type { ApprovalEnd } from "./approval-words.js";

beforeAll(() => {
  // the page loads jsdiff's browser build as a global (files/page-diff.ts)
  globalThis.Diff = JsDiff;
});

const inADay = new Date(Date.now() + 24 * 3600_000).toISOString();
const command: ShownApproval = { approval_id: "a1", tool: "run_command", arguments: { command: "npm install left-pad" }, reason: "run_command is set to ask in this project", expires_at: inADay };
const save: ShownApproval = { approval_id: "a2", tool: "save_output", arguments: { file_path: "{planning_artifacts}/prd.md", content: "# PRD\nGoal: ship\n" }, reason: "save_output is set to ask", expires_at: inADay };

function card(shown: ShownApproval, overrides: Partial<ApprovalCardOptions> = {}) {
  const sent: ApprovalDecisionBody[] = [];
  const options: ApprovalCardOptions = {
    shown,
    mayDecide: true,
    readFile: () => Promise.resolve({ exists: false }),
    decide: (body) => {
      sent.push(body);
      return Promise.resolve({ outcome: body.decision, ...(body.arguments ? { arguments_edited: true } : {}) });
    },
    ...overrides,
  };
  const shownCard = new ApprovalCard(options);
  document.body.replaceChildren(shownCard.element);
  return { card: shownCard, sent, element: shownCard.element };
}

const button = (element: HTMLElement, name: string): HTMLButtonElement => {
  const found = [...element.querySelectorAll("button")].find((candidate) => candidate.textContent === name && !candidate.closest("[hidden]"));
  if (!found) throw new Error(`no visible button ${name}`);
  return found;
};
const visibleButtons = (element: HTMLElement): string[] => [...element.querySelectorAll("button")].filter((candidate) => !candidate.closest("[hidden]")).map((candidate) => candidate.textContent ?? "");
const state = (element: HTMLElement): string => element.querySelector(".approval-state")?.textContent ?? "";

const view = (overrides: Partial<ApprovalView>): ApprovalView => ({
  ...command,
  session_id: "s1",
  project_id: "p1",
  agent_id: "bmm/dev",
  call_id: "call-1",
  requester: "alice",
  deciders: "requester",
  created_at: new Date().toISOString(),
  status: "pending",
  may_decide: true,
  ...overrides,
});

describe("ApprovalCard", () => {
  it("shows the tool, why it waits and the command line, and approves with one press, then says so and takes the focus", async () => {
    const { sent, element } = card(command);
    expect(element.querySelector("h3")?.textContent).toBe("run_command needs approval");
    expect(element.querySelector(".approval-reason")?.textContent).toBe("run_command is set to ask in this project");
    expect(element.querySelector(".approval-command")?.textContent).toBe("npm install left-pad");
    expect(state(element)).toMatch(/^Waiting for your decision · expires in /);
    expect(visibleButtons(element)).toEqual(["Approve", "Edit", "Reject"]);
    button(element, "Approve").click();
    await vi.waitFor(() => expect(state(element)).toBe("Approved by you"));
    expect(sent).toEqual([{ decision: "approve" }]);
    expect(visibleButtons(element)).toEqual([]);
    expect(document.activeElement).toBe(element.querySelector(".approval-state"));
    expect(element.classList.contains("is-approve")).toBe(true);
  });

  it("edits the arguments as JSON, refusing what is not valid before anything is sent", async () => {
    const { sent, element } = card(command);
    button(element, "Edit").click();
    const box = element.querySelector<HTMLTextAreaElement>("textarea.approval-json") as HTMLTextAreaElement;
    expect(JSON.parse(box.value)).toEqual({ command: "npm install left-pad" });
    expect(document.activeElement).toBe(box);
    box.value = '{"command": 42}';
    button(element, "Approve with these arguments").click();
    expect(element.querySelector(".field-error")?.textContent).toBe('run_command needs "command" as text');
    expect(box.getAttribute("aria-invalid")).toBe("true");
    expect(sent).toEqual([]);
    box.value = '{"command": "npm ci"}';
    box.dispatchEvent(new Event("input"));
    expect(box.hasAttribute("aria-invalid")).toBe(false);
    button(element, "Approve with these arguments").click();
    await vi.waitFor(() => expect(state(element)).toBe("Approved by you with changed arguments"));
    expect(sent).toEqual([{ decision: "approve", arguments: { command: "npm ci" } }]);
  });

  it("rejects with the member's message to the agent, or without one; Escape leaves the choice open", async () => {
    const first = card(command);
    button(first.element, "Reject").click();
    const message = first.element.querySelector<HTMLTextAreaElement>("form:not([hidden]) textarea") as HTMLTextAreaElement;
    message.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(visibleButtons(first.element)).toEqual(["Approve", "Edit", "Reject"]);
    button(first.element, "Reject").click();
    message.value = "  Use npm ci instead  ";
    button(first.element, "Reject the call").click();
    await vi.waitFor(() => expect(state(first.element)).toBe("Rejected by you"));
    expect(first.sent).toEqual([{ decision: "reject", message: "Use npm ci instead" }]);

    const second = card(command);
    button(second.element, "Reject").click();
    button(second.element, "Reject the call").click();
    await vi.waitFor(() => expect(second.sent).toEqual([{ decision: "reject" }]));
  });

  it("shows a viewer the call read-only, with who can decide it", () => {
    const { card: shown, element } = card(command, { mayDecide: false });
    expect(visibleButtons(element)).toEqual([]);
    expect(state(element)).toMatch(/^Waiting for a decision · /);
    shown.update(view({ may_decide: false, deciders: "editors" }));
    expect(element.querySelector(".approval-who")?.textContent).toBe("alice, the project's owner or any editor can decide.");
    expect(visibleButtons(element)).toEqual([]);
  });

  it("diffs a save_output against the file as it is now", async () => {
    const readFile = vi.fn(() => Promise.resolve({ exists: true as const, text: "# PRD\nGoal: draft\n" }));
    const { element } = card(save, { readFile });
    await vi.waitFor(() => expect(element.querySelector(".diff-summary")?.textContent).toBe("Compared with _bmad-output/planning-artifacts/prd.md as it is now: 1 line added, 1 removed."));
    expect(readFile).toHaveBeenCalledWith({ space: "project", path: "_bmad-output/planning-artifacts/prd.md" });
    expect([...element.querySelectorAll(".diff-added .diff-text, .diff-removed .diff-text")].map((line) => line.textContent)).toEqual(["Removed: Goal: draft", "Added: Goal: ship"]);
    expect(element.querySelector("details.approval-arguments")?.hasAttribute("open")).toBe(false);
  });

  it("follows a decision made elsewhere, an expiry and a call decided before this page's decision arrived", async () => {
    const approved = card(command);
    approved.card.end({ outcome: "approve", by: "bob" });
    expect(state(approved.element)).toBe("Approved by bob");
    expect(visibleButtons(approved.element)).toEqual([]);

    const expired = card(command);
    expired.card.update(view({ status: "expired", decided: { outcome: "expire", at: new Date().toISOString() } }));
    expect(state(expired.element)).toBe("Expired: nobody decided in time");

    const late = card(command, { decide: (): Promise<ApprovalEnd> => Promise.reject(new ApiError("APPROVAL_DECIDED", "This call was already rejected", 409)) });
    button(late.element, "Approve").click();
    await vi.waitFor(() => expect(state(late.element)).toBe("No longer waiting"));
    expect(late.element.querySelector('.approval-problem [role="alert"]')?.textContent).toContain("This call was already rejected");
    late.card.end({ outcome: "reject", by: "bob", message: "not now" });
    expect(state(late.element)).toBe("Rejected by bob: “not now”");
  });
});
