import { describe, expect, it } from "vitest";
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
    expect(answer.text).toBe("Let me look.\n\nFound it.");
  });

  it("adds no break when the calls before a tool round said nothing", () => {
    const answer = new AnswerAssembler();
    answer.toolRound();
    expect(answer.add("Done.")).toBe("Done.");
    expect(answer.text).toBe("Done.");
  });

  it("starts over when the turn is restarted", () => {
    const answer = new AnswerAssembler();
    answer.add("half an ans");
    answer.reset();
    answer.add("A whole answer.");
    expect(answer.text).toBe("A whole answer.");
  });
});
