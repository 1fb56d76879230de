import { Router, type Request } from "express";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import {
  SessionCompactReply,
  SessionDeleteReply,
  SessionListQuery,
  SessionListReply,
  SessionRenameReply,
  SessionSearchReply,
  SessionTitleBody,
  subjects,
} from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { currentUser } from "../auth/auth.js";
import { replayRun } from "../chat/event-replay.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { resolveProjectId } from "../access/project-access.js";
import { publishCancel } from "../chat/run-cancel.js";
import { checkedSessionId, requireChatOwner, sessionAccess } from "../access/session-access.js";
import { getSessionView } from "./session-view.js";
import { writeSseStream } from "../http/sse-stream.js";
import { sessionExport } from "./session-export.js";
import { withChatBranch } from "../repositories/chat-branch.js";

/**
 * The chats the caller may see (their own, and those of projects they are a member of): list, search one project's,
 * one chat, export it, rename, delete, cancel, compact, re-attach to its events. A chat the caller may not see is answered
 * exactly like a missing one (404), so ids cannot be probed. A chat's scratch files are in files/session-files-routes.ts.
 */
export function sessionsRoutes(context: GatewayContext, { audit }: { audit: AuditPublisher }): Router {
  const router = Router();

  router.get(
    "/api/sessions",
    async (request, response) => {
      const user = currentUser(response);
      const query = parseInput(SessionListQuery, request.query, "query");
      const projectId = query.project_id === undefined ? undefined : await resolveProjectId(context, user, query.project_id);
      if (query.q !== undefined) {
        // a search reads conversations: one project's at a time bounds it
        if (projectId === undefined) throw new AppError("VALIDATION_ERROR", "query.project_id: a search (q) needs the project to search");
        const found = await callService(context, subjects.sessionSearch, { user, project_id: projectId, query: query.q }, SessionSearchReply);
        response.json({ success: true, sessions: found.sessions });
        return;
      }
      const reply = await callService(context, subjects.sessionList, { user, project_id: projectId }, SessionListReply);
      response.json({ success: true, sessions: reply.sessions });
    },
  );

  // the chat's owner or the project's owner; the orchestrator decides
  router.patch("/api/sessions/:id", async (request, response) => {
    const { title } = parseInput(SessionTitleBody, request.body, "body");
    const body = { session_id: checkedSessionId(request.params["id"]), user: currentUser(response), title };
    const reply = await callService(context, subjects.sessionRename, body, SessionRenameReply);
    response.json({ success: true, session: reply.session });
  });

  router.delete("/api/sessions/:id", audited(context, audit, "chat_deleted", sessionTarget), async (request, response) => {
    const body = { session_id: checkedSessionId(request.params["id"]), user: currentUser(response) };
    // the chat's project, for the audit record: read before the chat is gone (a chat the caller cannot see has none)
    const projectId = await sessionAccess(context, body.session_id, body.user).then((session) => session.project_id, () => undefined);
    noteAudit(response, { project_id: projectId });
    await callService(context, subjects.sessionDelete, body, SessionDeleteReply);
    response.json({ success: true });
  });

  // any member of the chat's project may export it, as they may read it
  router.get("/api/sessions/:id/export", async (request, response) => {
    const exported = await sessionExport(context, checkedSessionId(request.params["id"]), currentUser(response));
    response.attachment(exported.fileName).type("text/markdown; charset=utf-8").send(exported.markdown);
  });

  router.get(
    "/api/sessions/:id",
    async (request, response) => {
      const session = await getSessionView(context, checkedSessionId(request.params["id"]), currentUser(response));
      response.json({ success: true, session: await withChatBranch(context, session) });
    },
  );

  router.post(
    "/api/sessions/:id/cancel",
    audited(context, audit, "chat_cancelled", sessionTarget),
    async (request, response) => {
      const user = currentUser(response);
      const session = await sessionAccess(context, request.params["id"], user);
      const paused = session.status === "awaiting_approval";
      noteAudit(response, { project_id: session.project_id, ...(session.status === "running" || paused ? {} : { detail: "not running" }) });
      requireChatOwner(session, user);
      const running = session.status === "running" && session.run_id !== null;
      if (running) publishCancel(context, session.id, session.run_id ?? undefined);
      // a chat paused for a decision: its pending calls are rejected and the turn ends CANCELLED (docs/approvals.md)
      if (paused) publishCancel(context, session.id, undefined, user);
      response.json({ success: true, cancelled: running || paused });
    },
  );

  // the chat's owner, who runs its turns (the orchestrator decides); one model call writes the hand-off, so the
  // gateway waits as it waits for a turn's silence (docs/models.md "Compaction")
  router.post("/api/sessions/:id/compact", async (request, response) => {
    const body = { session_id: checkedSessionId(request.params["id"]), user: currentUser(response) };
    const reply = await callService(context, subjects.sessionCompact, body, SessionCompactReply, { timeoutMs: context.config.CHAT_IDLE_TIMEOUT_MS });
    response.json({ success: true, compaction: reply.compaction });
  });

  // any member of the chat's project may re-attach, as a WebSocket `watch`
  router.get(
    "/api/sessions/:id/events",
    async (request, response) => {
      const session = await sessionAccess(context, request.params["id"], currentUser(response));
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
  return router;
}

/** A chat's records name it by its id; the project is noted by the route. */
const sessionTarget = (request: Request) => ({ target: String(request.params["id"]).slice(0, 128) });
