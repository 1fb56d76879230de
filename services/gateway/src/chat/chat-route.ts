import { Router, type Request, type Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { ChatRequestBody, type ChatAwaitingApprovalReply, type RunEvent } from "@agent-orchestrator/shared/wire";
import { currentSignIn, currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { publishCancel } from "./run-cancel.js";
import { sendError } from "../http/send-error.js";
import { writeSseStream } from "../http/sse-stream.js";
import type { StartChat } from "./start-chat.js";
import { turnAnswer } from "./turn-answer.js";
import { jsonBody } from "../http/json-body.js";

/**
 * POST /api/chat: one turn, answered as JSON, or streamed as SSE when the client accepts
 * text/event-stream. A turn refused at the start is a plain JSON error with its status either way. A turn that
 * pauses at a tool call waiting for a member's decision answers 202 with the call (the SSE stream ends with its
 * `approval_required`); its result comes to whoever watches the chat (docs/approvals.md).
 * When the client goes away before the end, the turn is cancelled unless the body says `detach`.
 */
export function chatRoute(context: GatewayContext, { startChat }: { startChat: StartChat }): Router {
  const router = Router();
  router.post(
    "/api/chat",
    jsonBody(context.config.BODY_LIMIT_BYTES),
    async (request, response) => {
      const body = parseInput(ChatRequestBody, request.body, "body");
      const user = currentUser(response);
      const run = await startChat({ body, owner: user, signIn: currentSignIn(response), clientAddress: context.clientAddress(request) });
      let finished = false;
      response.on("close", () => {
        run.close();
        if (!finished && !body.detach) publishCancel(context, run.first.session_id, run.first.run_id);
      });
      if (wantsEventStream(request)) await writeSseStream(response, run.events);
      else await answerJson(response, run.events, run.projectId);
      finished = true;
    },
  );
  return router;
}

const wantsEventStream = (request: Request): boolean => (request.headers.accept ?? "").includes("text/event-stream");

async function answerJson(response: Response, events: AsyncIterable<RunEvent>, projectId: string): Promise<void> {
  // the text said before a pause: a paused turn's answer so far (its subagents' text is their parent's tool result)
  let said = "";
  for await (const event of events) {
    if (event.type === "delta" && event.parent_call_id === undefined) said += event.text;
    if (event.type === "approval_required") {
      const { type: _type, session_id, run_id: _run, seq: _seq, ...call } = event;
      const reply: ChatAwaitingApprovalReply = { success: true, session_id, project_id: projectId, status: "awaiting_approval", response: said, approvals: [call] };
      response.status(202).json(reply);
      return;
    }
    if (event.type === "done") {
      response.json({ success: true, session_id: event.session_id, project_id: projectId, ...turnAnswer(event), iterations: event.iterations, usage: event.usage });
      return;
    }
    if (event.type === "error") {
      sendError(response, new AppError(event.error.code, event.error.message));
      return;
    }
  }
  if (!response.headersSent) sendError(response, new AppError("SERVICE_UNAVAILABLE", "The turn ended without an answer"));
}
