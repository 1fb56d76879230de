import { describe, expect, it } from "vitest";
import { joinAnswerTexts } from "@agent-orchestrator/shared/wire";
import { AnswerAssembler } from "./answer-assembler.js";

describe("AnswerAssembler", () => {
  it("joins the texts of model calls separated by tool rounds with one paragraph break", () => {
    const answer = new AnswerAssembler();
    expect(answer.add("Let me ")).toBe("Let me ");
    expect(answer.add("look.")).toBe("look.");
    answer.toolRound();
    answer.toolRound();
    expect(answer.add("")).toBe("");
    expect(answer.add("Found it.")).toBe("\n\nFound it.");
  });

  it("adds no break when the calls before a tool round said nothing", () => {
    const answer = new AnswerAssembler();
    answer.toolRound();
    expect(answer.add("Done.")).toBe("Done.");
  });

  it("streams, call by call, exactly the answer the done event carries", () => {
    // each model call's deltas; the second call only called tools
    const calls = [["Let me ", "look."], [], ["Found it."], ["Done."]];
    const answer = new AnswerAssembler();
    const streamed = calls.map((deltas, index) => {
      if (index > 0) answer.toolRound();
      return deltas.map((delta) => answer.add(delta)).join("");
    });
    expect(streamed.join("")).toBe(joinAnswerTexts(calls.map((deltas) => deltas.join(""))));
    expect(streamed.join("")).toBe("Let me look.\n\nFound it.\n\nDone.");
  });
});
