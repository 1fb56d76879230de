// @vitest-environment jsdom
import { describe, expect, it, vi } from "vitest";
import type { ApprovalView, RunEvent, SessionView } from "@agent-orchestrator/shared/wire";
import { ApiError } from "../api/api-error.js";
import type { LiveDecision } from "../api/live-socket.js";
import type { AssistantMessage } from "./assistant-message.js";
import type { ApprovalRequiredEvent } from "./chat-turn.js";
import { ChatApprovals, type ChatApprovalsDeps, type OpenEvents } from "./chat-approvals.js";

const expiresAt = new Date(Date.now() + 3600_000).toISOString();
const required = (approvalId: string): ApprovalRequiredEvent => ({
  type: "approval_required",
  session_id: "s1",
  run_id: "r1",
  seq: 3,
  approval_id: approvalId,
  call_id: `call-${approvalId}`,
  tool: "run_command",
  arguments: { command: "npm test" },
  reason: "run_command is set to ask",
  expires_at: expiresAt,
});
const view = (approvalId: string): ApprovalView => ({
  ...required(approvalId),
  session_id: "s1",
  project_id: "p1",
  agent_id: "bmm/dev",
  requester: "alice",
  deciders: "requester",
  created_at: new Date().toISOString(),
  status: "pending",
  may_decide: true,
});

/** An assistant message as far as the approvals use it. */
function message(): AssistantMessage {
  const element = document.createElement("article");
  document.body.append(element);
  return { element, addApproval: (card: HTMLElement) => element.append(card), pause: vi.fn() } as unknown as AssistantMessage;
}

function setUp(options: { connected: boolean; pending?: ApprovalView[] }) {
  let watcher: ((event: RunEvent) => void) | undefined;
  const resumed: Array<{ message: AssistantMessage; open: OpenEvents }> = [];
  const holders: AssistantMessage[] = [];
  const live = {
    connected: options.connected,
    approve: vi.fn((_session: string, _approval: string, body: { decision: "approve" | "reject" }): Promise<LiveDecision> => Promise.resolve({ decision: body.decision, by: "alice" })),
    watch: vi.fn((_session: string, listener: (event: RunEvent) => void) => {
      watcher = listener;
      return () => (watcher = undefined);
    }),
  };
  const approvals = {
    ofSession: vi.fn(() => Promise.resolve(options.pending ?? [])),
    decide: vi.fn(() => Promise.resolve({ ...view("a1"), status: "approved" as const, decided: { outcome: "approve" as const, by: "alice", at: new Date().toISOString() } })),
  };
  const deps: ChatApprovalsDeps = {
    api: {
      getSession: vi.fn(() => Promise.resolve({ run_id: "a1", last_run_id: null } as SessionView)),
      watch: vi.fn(() => Promise.reject(new ApiError("NOT_FOUND", "no turn"))),
      readFile: vi.fn(),
      readProjectFile: vi.fn(),
    },
    approvals,
    live,
    newMessage: () => {
      const holder = message();
      holders.push(holder);
      return holder;
    },
    resumed: (shown, open) => resumed.push({ message: shown, open }),
    changed: vi.fn(),
  };
  const chat = new ChatApprovals(deps);
  chat.open({ sessionId: "s1", projectId: "p1", readOnly: false });
  return { chat, deps, live, approvals, resumed, holders, watched: (event: RunEvent) => watcher?.(event) };
}

const press = (element: Element, name: string): void => {
  const button = [...element.querySelectorAll("button")].find((candidate) => candidate.textContent === name && !candidate.closest("[hidden]"));
  if (!button) throw new Error(`no visible button ${name}`);
  button.click();
};

async function collect(open: OpenEvents): Promise<string[]> {
  const types: string[] = [];
  for await (const event of await open(new AbortController().signal)) types.push(event.type);
  return types;
}

describe("ChatApprovals", () => {
  it("puts a paused turn's call in its message, decides it over the WebSocket, and plays the resumed turn from the watch", async () => {
    const { chat, live, resumed, watched } = setUp({ connected: true });
    const paused = message();
    chat.required(required("a1"), paused);
    expect(paused.element.querySelector(".approval-card h3")?.textContent).toBe("run_command needs approval");
    press(paused.element, "Approve");
    await vi.waitFor(() => expect(paused.element.querySelector(".approval-state")?.textContent).toBe("Approved by you"));
    expect(live.approve).toHaveBeenCalledWith("s1", "a1", { decision: "approve" });

    watched({ type: "approval_decided", session_id: "s1", run_id: "a1", seq: 0, approval_id: "a1", decision: "approve", by: "alice" });
    watched({ type: "done", session_id: "s1", run_id: "a1", seq: 1, response: "Tests pass", iterations: 1, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, usage_by_call: [], session_usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    expect(resumed).toHaveLength(1);
    expect(resumed[0]?.message).toBe(paused);
    expect(await collect((resumed[0] as { open: OpenEvents }).open)).toEqual(["approval_decided", "done"]);
  });

  it("shows a decision another member made, and plays the turn it resumed once", () => {
    const { chat, resumed, watched } = setUp({ connected: true });
    const paused = message();
    chat.required(required("a1"), paused);
    const decided: RunEvent = { type: "approval_decided", session_id: "s1", run_id: "a1", seq: 0, approval_id: "a1", decision: "reject", by: "bob" };
    watched(decided);
    watched(decided);
    expect(paused.element.querySelector(".approval-state")?.textContent).toBe("Rejected by bob");
    expect(resumed).toHaveLength(1);
  });

  it("decides by REST when the WebSocket is not connected, then follows the resumed turn over SSE", async () => {
    const { chat, deps, live, approvals, resumed } = setUp({ connected: false });
    const paused = message();
    chat.required(required("a1"), paused);
    press(paused.element, "Approve");
    await vi.waitFor(() => expect(paused.element.querySelector(".approval-state")?.textContent).toBe("Approved by you"));
    expect(live.approve).not.toHaveBeenCalled();
    expect(approvals.decide).toHaveBeenCalledWith("s1", "a1", { decision: "approve" });
    expect(resumed).toHaveLength(1);
    await expect((resumed[0] as { open: OpenEvents }).open(new AbortController().signal)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(deps.api.watch).toHaveBeenCalledWith("s1", expect.anything());
  });

  it("shows calls the chat lists in a message of their own, moved into a turn's message when its pause is played", async () => {
    const { chat, holders } = setUp({ connected: true, pending: [view("a1")] });
    await chat.list();
    expect(holders).toHaveLength(1);
    const holder = holders[0] as AssistantMessage;
    expect(holder.element.querySelectorAll(".approval-card")).toHaveLength(1);
    const paused = message();
    chat.required(required("a1"), paused);
    expect(paused.element.querySelectorAll(".approval-card")).toHaveLength(1);
    expect(holder.element.isConnected).toBe(false);
  });
});
