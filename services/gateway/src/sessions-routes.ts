import { Router, type Response } from "express";
import {
  AppError,
  SessionFilesListReply,
  SessionFilesReadReply,
  SessionGetReply,
  SessionListReply,
  subjects,
  subjectTokenPattern,
  type ManifestFile,
  type SessionManifest,
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
      const owner = currentUser(response);
      const reply = await withoutManifest<{ files: ManifestFile[]; manifest: SessionManifest | null; unservable_names?: number | undefined }>(
        context,
        id,
        owner,
        () => callService(context, subjects.sessionFilesList, { session_id: id, owner }, SessionFilesListReply),
        () => ({ files: [], manifest: null }),
      );
      // every path in `files` can be fetched below; paths that could not are only counted (docs/security.md case 142)
      const unservable = reply.unservable_names ? { unservable_names: reply.unservable_names } : {};
      response.json({ success: true, files: reply.files, manifest: reply.manifest, ...unservable });
    },
  );

  router.get(
    "/api/sessions/:id/files/*path",
    async (request, response) => {
      const id = checkedId(request.params["id"]);
      // express decoded each segment once; the tool-runner checks the path with the sandbox's rules
      const path = (request.params["path"] as unknown as string[]).join("/");
      const owner = currentUser(response);
      const reply = await withoutManifest(
        context,
        id,
        owner,
        () => callService(context, subjects.sessionFilesRead, { session_id: id, owner, path }, SessionFilesReadReply),
        () => {
          throw new AppError("FILE_NOT_FOUND", "File not found");
        },
      );
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

/**
 * The tool-runner knows a session's owner from its manifest, which the session's first tool that writes or the
 * end of its first turn creates (docs/design.md "Sessions"). Before that it answers SESSION_NOT_FOUND; the
 * session record then says whether the session is the caller's, so `none` is answered to its owner only and
 * anyone else still gets SESSION_NOT_FOUND.
 */
async function withoutManifest<T>(context: GatewayContext, id: string, owner: string, call: () => Promise<T>, none: () => T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!AppError.is(error) || error.code !== "SESSION_NOT_FOUND") throw error;
    await callService(context, subjects.sessionGet, { session_id: id, owner }, SessionGetReply);
    return none();
  }
}

function checkedId(id: string | string[] | undefined): string {
  if (typeof id !== "string" || !subjectTokenPattern.test(id)) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  return id;
}

async function getSession(context: GatewayContext, response: Response, id: string | string[] | undefined): Promise<SessionView> {
  return getSessionView(context, checkedId(id), currentUser(response));
}
