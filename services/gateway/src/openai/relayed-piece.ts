import type { RunEvent } from "@agent-orchestrator/shared/wire";
import type { AnswerAssembler } from "./answer-assembler.js";

/** What one run event adds to a `/v1` stream: answer text, an SSE comment, or nothing. */
export type RelayedPiece = { text: string } | { comment: string } | undefined;

/**
 * The part of a turn's events every `/v1` stream relays alike (chat completions and responses): the answer's text
 * with the paragraph breaks the `done` answer has, and tool activity as SSE comments (`: tool_call read_file`), which
 * clients ignore and which keep proxies from closing a quiet stream. A subagent's events (`parent_call_id`) are its
 * own conversation: they show only as comments, never in the answer. `done` and `error` are each door's to answer.
 */
export function relayedPiece(event: RunEvent, answer: AnswerAssembler): RelayedPiece {
  if (event.type === "delta") {
    if (event.parent_call_id !== undefined) return undefined;
    const text = answer.add(event.text);
    return text === "" ? undefined : { text };
  }
  if (event.type === "tool_call") {
    if (event.parent_call_id === undefined) answer.toolRound();
    return { comment: `: tool_call ${event.name}\n\n` };
  }
  if (event.type === "tool_result") return { comment: `: tool_result ${event.name} ${event.success ? "ok" : (event.error_code ?? "failed")}\n\n` };
  return undefined;
}
