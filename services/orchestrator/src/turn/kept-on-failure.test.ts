import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { zeroUsage, type SessionRecord } from "@agent-orchestrator/shared/wire";
import { keptOnFailure } from "./kept-on-failure.js";

const session: SessionRecord = {
  id: "s1",
  agent_id: "bmm/pm",
  owner: "ada",
  project_id: "p1",
  status: "running",
  run_id: "r2",
  run_started_at: null,
  last_run_id: "r2",
  messages: [
    { role: "user", content: "first" },
    { role: "assistant", content: "first answer" },
  ],
  usage: zeroUsage(),
  turns: 1,
  created_at: "2026-11-25T10:00:00Z",
  updated_at: "2026-11-25T10:00:00Z",
};
const userMessage = { role: "user" as const, content: "write the PRD" };
const added: ChatCompletionMessageParam[] = [
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "save_output", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: '{"success":true}' },
];
const budget = new AppError("BUDGET_EXCEEDED", "Your daily budget of 1 is spent (1.2 today); it resets at 2026-11-26T00:00:00.000Z.");

describe("keptOnFailure", () => {
  it("keeps a turn stopped past a budget: the message, its tool calls and results, and a note saying why it stopped", () => {
    const kept = keptOnFailure(budget, session, userMessage, added);
    expect(kept.turns).toBe(2);
    expect(kept.messages.slice(2)).toEqual([userMessage, ...added, { role: "assistant", content: `[The turn was stopped here: ${budget.message}]` }]);
  });

  it("leaves the conversation as it was when nothing was added, or for any other failure", () => {
    expect(keptOnFailure(budget, session, userMessage, [])).toBe(session);
    expect(keptOnFailure(new AppError("MODEL_UNAVAILABLE", "down"), session, userMessage, added)).toBe(session);
    expect(keptOnFailure(new Error("boom"), session, userMessage, added)).toBe(session);
  });
});
