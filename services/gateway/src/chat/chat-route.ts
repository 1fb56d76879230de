import { randomUUID } from "node:crypto";
import { Router, type Request, type Response } from "express";
import { AppError, ChatRequestBody, SessionGetReply, serviceNames, subjects, type RunEvent, type SignInVia } from "@agent-orchestrator/shared";
import { currentSignIn, currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { defaultProjectAlias } from "../projects/project-access.js";
import { publishCancel } from "./run-cancel.js";
import { startRun, type NewRun, type StartedRun } from "./run-client.js";
import { countReplicas } from "../service-replicas.js";
import { sendError } from "../http/send-error.js";
import { writeSseStream } from "./sse-stream.js";
import { resolveAttachments } from "../uploads/chat-attachments.js";
import { auditChatStart } from "../audit/chat-start-audit.js";
import { turnAnswer } from "./turn-answer.js";
import { callerName } from "../settings/caller-name.js";

/**
 * POST /api/chat: one turn, answered as JSON, or streamed as SSE when the client accepts
 * text/event-stream. A turn refused at the start is a plain JSON error with its status either way.
 * When the client goes away before the end, the turn is cancelled unless the body says `detach`.
 */
export function chatRoute(context: GatewayContext): Router {
  const router = Router();
  router.post(
    "/api/chat",
    async (request, response) => {
      const body = parseInput(ChatRequestBody, request.body, "body");
      const user = currentUser(response);
      const run = await startChatRun(context, body, user, currentSignIn(response), context.clientAddress(request));
      let finished = false;
      response.on("close", () => {
        run.close();
        if (!finished && !body.detach) publishCancel(context, run.first.session_id, run.first.run_id);
      });
      const events = context.metrics.observe(run.events);
      if (wantsEventStream(request)) await writeSseStream(response, events);
      else await answerJson(response, events, () => projectOfRun(context, run, user));
      finished = true;
    },
  );
  return router;
}

/** The owner's name for `user_name`'s default (docs/settings.md), when this gateway signs people in. */
function withCallerName(context: GatewayContext, owner: string, signIn: SignInVia | undefined): { caller_name?: string } {
  const name = callerName(context.config, owner, signIn);
  return name ? { caller_name: name } : {};
}

/** A busy orchestrator may answer a ping late; a short wait would count it as absent. */
const orchestratorPingWaitMs = 500;

/**
 * Starts a chat turn for `owner`: a new session unless the body names one, in the project the body names
 * (absent or `default`: the owner's default project). Its attachments are checked, and inline ones uploaded,
 * before the turn is queued (chat-attachments.ts). Shared with the WebSocket, /v1 and MCP, each of which passes
 * how the owner signed in (`signIn`), whose display name is `user_name`'s default.
 */
export async function startChatRun(
  context: GatewayContext,
  body: Pick<ChatRequestBody, "agent_id" | "message" | "session_id" | "project_id" | "attachments">,
  owner: string,
  signIn: SignInVia | undefined,
  clientAddress?: string,
): Promise<StartedRun> {
  const attachments = await resolveAttachments(context, owner, body);
  const run: NewRun = {
    run_id: randomUUID(),
    session_id: body.session_id ?? randomUUID(),
    new_session: body.session_id === undefined,
    agent_id: body.agent_id,
    message: body.message,
    owner,
    project_id: body.project_id === defaultProjectAlias ? undefined : body.project_id,
    ...(attachments ? { attachments } : {}),
    ...withCallerName(context, owner, signIn),
  };
  const started = startRun(
    {
      connection: context.connection,
      logger: context.logger,
      subjectPrefix: context.subjectPrefix,
      pickupTimeoutMs: context.config.RUN_PICKUP_TIMEOUT_MS,
      idleTimeoutMs: context.config.CHAT_IDLE_TIMEOUT_MS,
      countOrchestrators: () => countReplicas(context.connection, serviceNames.orchestrator, orchestratorPingWaitMs),
    },
    run,
  );
  return run.new_session ? auditChatStart(context, started, { actor: owner, target: run.session_id, project_id: run.project_id, client_address: clientAddress }) : started;
}

/**
 * The project a started chat belongs to: its `session` event names it; an orchestrator that does not
 * (one started before projects, during a rolling upgrade) leaves the chat's record to say.
 */
export async function projectOfRun(context: GatewayContext, run: StartedRun, user: string): Promise<string> {
  if (run.first.type === "session" && run.first.project_id !== undefined) return run.first.project_id;
  return (await callService(context, subjects.sessionGet, { session_id: run.first.session_id, user }, SessionGetReply)).session.project_id;
}

const wantsEventStream = (request: Request): boolean => (request.headers.accept ?? "").includes("text/event-stream");

async function answerJson(response: Response, events: AsyncIterable<RunEvent>, projectId: () => Promise<string>): Promise<void> {
  for await (const event of events) {
    if (event.type === "done") {
      const project_id = await projectId();
      response.json({ success: true, session_id: event.session_id, project_id, ...turnAnswer(event), iterations: event.iterations, usage: event.usage });
      return;
    }
    if (event.type === "error") {
      sendError(response, new AppError(event.error.code, event.error.message));
      return;
    }
  }
  if (!response.headersSent) sendError(response, new AppError("SERVICE_UNAVAILABLE", "The turn ended without an answer"));
}
