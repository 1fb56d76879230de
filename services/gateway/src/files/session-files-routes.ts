import { Router } from "express";
import { FilesListReply, FilesReadReply, subjects, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { spacePath } from "./project-file-path.js";
import { sendRawFile } from "./raw-file-response.js";
import { sessionAccess } from "../access/session-access.js";

/**
 * A chat's own scratch files (`{session-folder}`: memlog workspaces, script renders), for anyone who may
 * see the chat (any member of its project). What the chat wrote to BMAD's output places is the project's
 * (project-files-routes.ts).
 */
export function sessionFilesRoutes(context: GatewayContext): Router {
  const router = Router();

  router.get(
    "/api/sessions/:id/files",
    async (request, response) => {
      const session = await sessionAccess(context, request.params["id"], currentUser(response));
      const space: FileSpaceRef = { kind: "session", id: session.id };
      const reply = await callService(context, subjects.files("list"), { space }, FilesListReply);
      // every path in `files` can be fetched below; paths that could not are only counted (docs/security.md case 142)
      response.json({ success: true, files: reply.files, bytes: reply.bytes, unservable_names: reply.unservable_names });
    },
  );

  router.get(
    "/api/sessions/:id/files/*path",
    async (request, response) => {
      const path = spacePath(request.params["path"]);
      const session = await sessionAccess(context, request.params["id"], currentUser(response));
      const space: FileSpaceRef = { kind: "session", id: session.id };
      const reply = await callService(context, subjects.files("read"), { space, path }, FilesReadReply);
      sendRawFile(response, path, reply.content, reply.truncated, { "x-file-revision": String(reply.file.revision) });
    },
  );
  return router;
}
