import { randomUUID } from "node:crypto";
import { Router, type Request, type Response } from "express";
import { AppError, ChatRequestBody, type RunEvent, type RunStartRequest } from "@agent-orchestrator/shared";
import { asyncRoute } from "./async-route.js";
import { currentUser } from "./auth.js";
import type { GatewayContext } from "./gateway-context.js";
import { startRun } from "./run-client.js";
import { sendError } from "./send-error.js";

/** POST /api/chat: one turn, answered as JSON, or streamed as SSE when the client accepts text/event-stream. */
export function chatRoute(context: GatewayContext): Router {
  const router = Router();
  router.post(
    "/api/chat",
    asyncRoute(async (request, response) => {
      const parsed = ChatRequestBody.safeParse(request.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AppError("VALIDATION_ERROR", `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
      }
      const body = parsed.data;
      const runRequest: RunStartRequest = {
        run_id: randomUUID(),
        session_id: body.session_id ?? randomUUID(),
        new_session: body.session_id === undefined,
        agent_id: body.agent_id,
        message: body.message,
        owner: currentUser(response),
      };
      const run = await startRun(
        {
          connection: context.connection,
          logger: context.logger,
          subjectPrefix: context.subjectPrefix,
          startTimeoutMs: context.config.ORCHESTRATOR_TIMEOUT_MS,
          idleTimeoutMs: context.config.CHAT_IDLE_TIMEOUT_MS,
        },
        runRequest,
      );
      // stop relaying when the client goes away (the turn itself finishes and is saved)
      response.on("close", () => run.close());
      if (wantsEventStream(request)) await streamEvents(response, run.events);
      else await answerJson(response, run.events);
    }),
  );
  return router;
}

const wantsEventStream = (request: Request): boolean => (request.headers.accept ?? "").includes("text/event-stream");

async function streamEvents(response: Response, events: AsyncIterable<RunEvent>): Promise<void> {
  response.status(200).set({
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  response.flushHeaders();
  try {
    for await (const event of events) response.write(formatSse(event));
  } catch (error) {
    const body = AppError.is(error) ? error.toBody() : { code: "INTERNAL" as const, message: "Internal error" };
    response.write(`event: error\ndata: ${JSON.stringify({ type: "error", error: body })}\n\n`);
  }
  response.end();
}

/** One SSE message: the event name is the event's type, the data its JSON. */
export const formatSse = (event: RunEvent): string => `event: ${event.type}\nid: ${event.run_id}:${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;

async function answerJson(response: Response, events: AsyncIterable<RunEvent>): Promise<void> {
  for await (const event of events) {
    if (event.type === "done") {
      response.json({ success: true, session_id: event.session_id, response: event.response, iterations: event.iterations, usage: event.usage });
      return;
    }
    if (event.type === "error") {
      sendError(response, new AppError(event.error.code, event.error.message));
      return;
    }
  }
  if (!response.headersSent) sendError(response, new AppError("SERVICE_UNAVAILABLE", "The turn ended without an answer"));
}
