import { describe, expect, it } from "vitest";
import { judgePrompt, parseVerdict } from "./eval-judge.js";

describe("parseVerdict", () => {
  it("reads the two scores of the judge's JSON, wherever it sits in the answer", () => {
    expect(parseVerdict('Here: {"persona": 5, "intent": 3, "reason": "asks two questions"}')).toEqual([
      { check: "judge.persona", score: 5, outcome: "pass", reason: "asks two questions" },
      { check: "judge.intent", score: 3, outcome: "fail", reason: "asks two questions" },
    ]);
  });

  it("makes an answer without a usable score an error, never a pass", () => {
    expect(parseVerdict("I think it went well.").map((result) => result.outcome)).toEqual(["error", "error"]);
    expect(parseVerdict('{"persona": 7, "intent": 4.5}').map((result) => result.outcome)).toEqual(["error", "error"]);
  });
});

describe("judgePrompt", () => {
  it("shows the judge the agent, the step's intent, the user's message, the tools called and the answer", () => {
    const prompt = judgePrompt(
      { id: "bmm/analyst", name: "Mary", title: "Business Analyst", format: "skill", menu: [], persona: { role: "Analyst", communication_style: "Treasure hunter" } },
      { name: "pick", message: "CB", intent: "Run the brief workflow.", checks: [] },
      {
        sessionId: "s",
        events: [
          { session_id: "s", run_id: "r", seq: 1, type: "tool_call", call_id: "c", name: "load_skill", arguments: { name: "bmad-product-brief" } },
          { session_id: "s", run_id: "r", seq: 2, type: "done", response: "What is your idea?", iterations: 2, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, usage_by_call: [], session_usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
        ],
      },
    );
    for (const part of ["Mary, Business Analyst", "Treasure hunter", "Run the brief workflow.", "THE USER SAID: CB", 'load_skill {"name":"bmad-product-brief"}', "What is your idea?"]) {
      expect(prompt).toContain(part);
    }
  });
});
