import type { Response } from "express";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { type RunEvent, type StoredResponse } from "@agent-orchestrator/shared/wire";
import { AnswerAssembler } from "./answer-assembler.js";
import { toOpenAiError } from "./openai-error.js";
import { outputMessage, outputMessageId, outputTextPart, responseObject } from "./response-object.js";
import { relayedPiece } from "./relayed-piece.js";
import { failedResponse, type ResponseEnd } from "./response-turn-end.js";
import { openSseResponse, writeOrDrop } from "../http/sse-stream.js";
import { toAppError } from "../http/to-app-error.js";

/** Typed SSE events, each numbered in order (`sequence_number`) as the Responses API streams them. */
class TypedEvents {
  private next = 0;

  event(type: string, fields: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.next++, ...fields })}\n\n`;
  }
}

/**
 * Streams a turn as the Responses API's events: `response.created` and `response.in_progress`, the output message
 * and its text part added, the text as `response.output_text.delta`s (with the paragraph breaks of the `done`
 * answer, relayed-piece.ts), then the text, part and message done and `response.completed`, whose response is
 * stored first so a client that hears it can retrieve or continue it. Tool activity is SSE comments. A failure
 * after the status line is `response.failed` and then an `error` event, which the `openai` client raises.
 */
export async function streamResponse(response: Response, events: AsyncIterable<RunEvent>, record: StoredResponse, end: ResponseEnd): Promise<void> {
  openSseResponse(response);
  const typed = new TypedEvents();
  const where = { item_id: outputMessageId(record), output_index: 0 };
  const part = { ...where, content_index: 0 };
  const started = responseObject(record, end.store);
  const opening =
    typed.event("response.created", { response: started }) +
    typed.event("response.in_progress", { response: started }) +
    typed.event("response.output_item.added", { output_index: 0, item: outputMessage(record, "in_progress") }) +
    typed.event("response.content_part.added", { ...part, part: outputTextPart("") });
  const clientLeft = () => failedResponse(record, new AppError("CANCELLED", "The client went away"), end);
  if (!(await writeOrDrop(response, opening))) {
    await clientLeft();
    return;
  }
  const answer = new AnswerAssembler();
  let text = "";
  try {
    for await (const event of events) {
      if (event.type === "error") throw new AppError(event.error.code, event.error.message);
      if (event.type === "done") {
        const completed: StoredResponse = { ...record, status: "completed", output_text: text, response_truncated: false, usage: event.usage };
        await end.persist(completed);
        response.end(
          typed.event("response.output_text.done", { ...part, text, logprobs: [] }) +
            typed.event("response.content_part.done", { ...part, part: outputTextPart(text) }) +
            typed.event("response.output_item.done", { output_index: 0, item: outputMessage(completed, "completed") }) +
            typed.event("response.completed", { response: responseObject(completed, end.store) }),
        );
        return;
      }
      const piece = relayedPiece(event, answer);
      if (piece === undefined) continue;
      if ("text" in piece) text += piece.text;
      const sent = "comment" in piece ? piece.comment : typed.event("response.output_text.delta", { ...part, delta: piece.text, logprobs: [] });
      if (!(await writeOrDrop(response, sent))) {
        await clientLeft();
        return;
      }
    }
    throw new AppError("SERVICE_UNAVAILABLE", "The turn ended without an answer");
  } catch (error) {
    const appError = toAppError(error, response.locals["logger"] as Logger);
    const failed = await failedResponse(record, appError, end);
    const { body } = toOpenAiError(appError);
    response.end(
      typed.event("response.failed", { response: responseObject(failed, end.store) }) +
        typed.event("error", { code: body.error.code, message: body.error.message, param: null, error: body.error }),
    );
  }
}
