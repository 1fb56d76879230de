import { AppError } from "@agent-orchestrator/shared/runtime";

/**
 * What a new streamed tool call costs besides its text: the accumulator keeps an object per call, so a model
 * sending many empty calls is counted too.
 */
export const toolCallOverheadBytes = 128;

/**
 * The bytes a turn's model answers may take (docs/design.md "Limits of a turn"): each answer at most
 * `answerMaxBytes`, all of them together at most `turnMaxBytes`. The loop asks before it keeps a piece of an
 * answer, so nothing past the limit is kept, published or stored.
 */
export class ModelOutputBudget {
  private turnUsed = 0;
  private answerUsed = 0;

  constructor(
    private readonly answerMaxBytes: number,
    private readonly turnMaxBytes: number,
  ) {}

  /** A new model call starts: its answer has the whole answer limit, within what is left of the turn's. */
  startAnswer(): void {
    this.answerUsed = 0;
  }

  /** Bytes the current answer may still take. */
  get room(): number {
    return Math.max(0, Math.min(this.answerMaxBytes - this.answerUsed, this.turnMaxBytes - this.turnUsed));
  }

  /** Counts `bytes` of the current answer; false when they do not fit (then nothing is counted). */
  take(bytes: number): boolean {
    if (bytes > this.room) return false;
    this.answerUsed += bytes;
    this.turnUsed += bytes;
    return true;
  }

  /** The limit that was passed, as a MODEL_OUTPUT_TOO_LARGE error and a note for the kept answer. */
  exceeded(): { error: AppError; note: string } {
    const answerLimit = this.answerMaxBytes - this.answerUsed <= this.turnMaxBytes - this.turnUsed;
    const detail = answerLimit
      ? { limit: "MODEL_ANSWER_MAX_BYTES", bytes: this.answerMaxBytes }
      : { limit: "TURN_OUTPUT_MAX_BYTES", bytes: this.turnMaxBytes };
    const what = answerLimit ? "the most one model answer may be" : "the most the model may write in one turn";
    return {
      error: new AppError(
        "MODEL_OUTPUT_TOO_LARGE",
        `The model's answer passed ${detail.bytes} bytes, ${what}; it was cut there and the turn was stopped`,
        { detail },
      ),
      note: `\n\n[The answer was cut here: it passed ${detail.bytes} bytes, ${what}.]`,
    };
  }
}
