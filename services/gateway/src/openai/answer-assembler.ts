/**
 * The assistant text of one turn as `/v1` streams it: every model call's text, a paragraph break between
 * calls separated by a tool round. The pieces it returns add up to the `done` event's answer
 * (joinAnswerTexts), which the non-streamed answer is, so a client that sends the answer back is recognised
 * by the session matcher either way.
 */
export class AnswerAssembler {
  private said = false;
  private breakDue = false;

  /** Adds streamed text; returns what to send for it (with the paragraph break when one is due). */
  add(text: string): string {
    if (text === "") return "";
    const sent = this.said && this.breakDue ? `\n\n${text}` : text;
    this.said = true;
    this.breakDue = false;
    return sent;
  }

  /** A tool round: the model's next text is a new paragraph. */
  toolRound(): void {
    this.breakDue = true;
  }
}
