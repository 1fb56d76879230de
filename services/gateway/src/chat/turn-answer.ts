import type { RunEvent } from "@agent-orchestrator/shared/wire";

/** What `/api/chat`, the MCP `chat` tool and `/v1` answer with: the text and flag of the turn's `done` event. */
export interface TurnAnswer {
  /** every model call's text of the turn (joinAnswerTexts), as SSE and WebSocket clients read it on `done` */
  response: string;
  /** the answer was cut to fit one NATS message; the whole of it is in the session */
  response_truncated: boolean;
}

/**
 * The answer of a turn, taken whole from its `done` event rather than rebuilt from the deltas, so every door
 * gives the same text: the orchestrator's, which is also what the session keeps.
 */
export const turnAnswer = (done: Extract<RunEvent, { type: "done" }>): TurnAnswer => ({
  response: done.response,
  response_truncated: done.response_truncated === true,
});
