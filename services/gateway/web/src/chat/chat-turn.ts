import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { ApiError, toApiError } from "../api/api-error.js";
import type { AssistantMessage } from "./assistant-message.js";
import { compactionLine } from "./compaction-line.js";
import { writesFile } from "./tool-call-target.js";

/** What the page does besides drawing, as a turn's events arrive. */
export interface TurnObserver {
  /** the turn's session is known (a new chat learns its id here) */
  session(sessionId: string): void;
  /** a tool wrote a file into the session folder */
  fileSaved(): void;
  /** the turn paused at a tool call that waits for a member's decision (docs/approvals.md): its card goes into `message` */
  approvalRequired(event: ApprovalRequiredEvent, message: AssistantMessage): void;
  /** a waiting call was decided, expired or cancelled: how a resumed turn starts */
  approvalDecided(event: ApprovalDecidedEvent): void;
}

export type ApprovalRequiredEvent = Extract<RunEvent, { type: "approval_required" }>;
export type ApprovalDecidedEvent = Extract<RunEvent, { type: "approval_decided" }>;

/**
 * Plays one turn's events into an assistant message until its final event, or until it pauses at a call that waits
 * for a decision (the turn holds nothing while it waits; the turn that resumes it is played on into the same
 * message). A stream that ends without `done` or `error` is reported as such rather than left looking unfinished.
 * Resolves true when the page saw the run's last event: false when the stream broke off first (the page was left
 * or reloaded, the connection dropped), and the turn may still be running.
 */
export async function playTurn(events: AsyncIterable<RunEvent>, message: AssistantMessage, observer: TurnObserver, signal: AbortSignal): Promise<boolean> {
  try {
    for await (const event of events) {
      switch (event.type) {
        case "session":
          observer.session(event.session_id);
          break;
        case "delta":
          // a subagent's text reaches its parent as the tool result; its tool calls show under the call
          if (event.parent_call_id === undefined) message.appendText(event.text);
          break;
        case "tool_call":
          message.addToolCall(event);
          break;
        case "tool_result":
          message.completeToolCall(event);
          if (event.success && writesFile(event.name)) observer.fileSaved();
          break;
        case "approval_required":
          observer.approvalRequired(event, message);
          message.pause();
          return true;
        case "approval_decided":
          observer.approvalDecided(event);
          break;
        case "compaction":
          // the turn's own compaction goes where a reload shows it: after the user's message, before this answer
          if (event.parent_call_id === undefined) message.element.before(compactionLine(event));
          break;
        case "done":
          message.finish(event.response, event.iterations, event.usage);
          return true;
        case "error":
          message.fail(event.error);
          return true;
      }
    }
    message.fail(new ApiError("STREAM_ENDED", "The answer stopped before it was complete"));
  } catch (error) {
    if (signal.aborted) message.fail(new ApiError("CANCELLED", "Stopped"));
    else message.fail(ApiError.is(error) ? error : new ApiError("STREAM_ENDED", toApiError(error).message));
  }
  return false;
}
