import { joinAnswers } from "./session-matcher.js";

/**
 * The assistant text of one turn as `/v1` sends it: every model call's text, a paragraph break between
 * calls separated by a tool round. Streamed and non-streamed answers are built by the same rules, so a
 * client that sends the answer back is recognised by the session matcher either way.
 */
export class AnswerAssembler {
  private segments: string[] = [""];

  /** Adds streamed text; returns what to send for it (with the paragraph break when one is due). */
  add(text: string): string {
    if (text === "") return "";
    const current = this.segments.length - 1;
    const breakFirst = this.segments[current] === "" && this.segments.some((segment) => segment !== "");
    this.segments[current] += text;
    return breakFirst ? `\n\n${text}` : text;
  }

  /** A tool round: the model's next text is a new paragraph. */
  toolRound(): void {
    if (this.segments.at(-1) !== "") this.segments.push("");
  }

  /** The turn started again on another orchestrator (after a crash): its text comes again from the start. */
  reset(): void {
    this.segments = [""];
  }

  get text(): string {
    return joinAnswers(this.segments.filter((segment) => segment !== ""));
  }
}
