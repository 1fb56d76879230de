import { Router, type Response } from "express";
import {
  AppError,
  SessionFilesListReply,
  SessionFilesReadReply,
  SessionListReply,
  subjects,
  subjectTokenPattern,
  type SessionView,
} from "@agent-orchestrator/shared";
import { currentUser } from "./auth.js";
import { contentTypeFor } from "./content-type.js";
import { replayRun } from "./event-replay.js";
import type { GatewayContext } from "./gateway-context.js";
import { getSessionView } from "./session-view.js";
import { callService } from "./nats-call.js";
import { publishCancel } from "./run-cancel.js";
import { writeSseStream } from "./sse-stream.js";

/**
 * The caller's sessions: list, one session, cancel, re-attach to its events, and its files. Another
 * user's session is answered exactly like a missing one (404), so ids cannot be probed.
 */
export function sessionsRoutes(context: GatewayContext): Router {
  const router = Router();

  router.get(
    "/api/sessions",
    async (_request, response) => {
      const reply = await callService(context, subjects.sessionList, { owner: currentUser(response) }, SessionListReply);
      response.json({ success: true, sessions: reply.sessions });
    },
  );

  router.get(
    "/api/sessions/:id",
    async (request, response) => {
      const session = await getSession(context, response, request.params["id"]);
      const files = await callService(context, subjects.sessionFilesList, { session_id: session.id, owner: currentUser(response) }, SessionFilesListReply).catch(
        () => undefined,
      );
      response.json({ success: true, session, manifest: files?.manifest ?? null });
    },
  );

  router.post(
    "/api/sessions/:id/cancel",
    async (request, response) => {
      const session = await getSession(context, response, request.params["id"]);
      const running = session.status === "running" && session.run_id !== null;
      if (running) publishCancel(context, session.id, session.run_id ?? undefined);
      response.json({ success: true, cancelled: running });
    },
  );

  router.get(
    "/api/sessions/:id/events",
    async (request, response) => {
      const session = await getSession(context, response, request.params["id"]);
      const runId = session.run_id ?? session.last_run_id;
      if (!runId) throw new AppError("NOT_FOUND", "This session has no turn to show");
      const controller = new AbortController();
      response.on("close", () => controller.abort());
      const events = replayRun(
        {
          connection: context.connection,
          logger: context.logger,
          subjectPrefix: context.subjectPrefix,
          // a finished turn's events are all stored: stop as soon as they stop coming
          idleTimeoutMs: session.status === "running" ? context.config.CHAT_IDLE_TIMEOUT_MS : 1_000,
          signal: controller.signal,
        },
        session.id,
        runId,
      );
      await writeSseStream(response, events);
    },
  );

  router.get(
    "/api/sessions/:id/files",
    async (request, response) => {
      const id = checkedId(request.params["id"]);
      const reply = await callService(context, subjects.sessionFilesList, { session_id: id, owner: currentUser(response) }, SessionFilesListReply);
      response.json({ success: true, files: reply.files, manifest: reply.manifest });
    },
  );

  router.get(
    "/api/sessions/:id/files/*path",
    async (request, response) => {
      const id = checkedId(request.params["id"]);
      // express decoded each segment once; the tool-runner checks the path with the sandbox's rules
      const path = (request.params["path"] as unknown as string[]).join("/");
      const reply = await callService(context, subjects.sessionFilesRead, { session_id: id, owner: currentUser(response), path }, SessionFilesReadReply);
      response
        .status(200)
        .set({
          "content-type": contentTypeFor(reply.path),
          "x-content-truncated": String(reply.truncated),
          "content-disposition": "inline",
          // a file the model wrote is data: even opened on its own it runs nothing and submits nothing
          "content-security-policy": "default-src 'none'; form-action 'none'; frame-ancestors 'none'; sandbox",
        })
        .send(reply.content);
    },
  );
  return router;
}

function checkedId(id: string | string[] | undefined): string {
  if (typeof id !== "string" || !subjectTokenPattern.test(id)) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  return id;
}

async function getSession(context: GatewayContext, response: Response, id: string | string[] | undefined): Promise<SessionView> {
  return getSessionView(context, checkedId(id), currentUser(response));
}
