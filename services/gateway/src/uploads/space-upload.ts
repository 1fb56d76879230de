import type { Request, Response } from "express";
import { z } from "zod";
import { toErrorBody, type Logger } from "@agent-orchestrator/shared/runtime";
import { FilesStatReply, FilesUploadReply, subjects, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { noteAudit } from "../audit/audited.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { httpStatusByCode } from "../http/http-status.js";
import { spacePath } from "../files/project-file-path.js";
import { toAppError } from "../http/to-app-error.js";
import { multipartUpload, type StoredUpload } from "./multipart-upload.js";
import { tooLarge, type UploadStaging } from "./upload-staging.js";

/** A multipart upload's query: the folder its files go into (the space's root when absent). */
export const MultipartQuery = z.object({ folder: z.string().max(1024).optional() });

/**
 * Files coming into a space, a project's files or a chat's scratch space, the same way for both (docs/uploads.md
 * "How an upload travels"): each path's verdict from the tool-runner before its body is read, the body streamed
 * into the uploads store, then taken by the tool-runner, which converts documents and decides the space's quota.
 * The caller has checked who may write there.
 */
export class SpaceUpload {
  constructor(
    private readonly context: GatewayContext,
    private readonly staging: UploadStaging,
  ) {}

  /** A raw body as `path` of `space` (`PUT …/files/<path>`): 201 for a new file, 200 for a new revision. */
  async put(request: Request, response: Response, space: FileSpaceRef, path: string, user: string): Promise<void> {
    // the path's verdict before the body is read: a refused name costs no upload
    await this.check(space, path);
    const staged = await stageBody(this.staging, request, response, this.context.config.UPLOAD_MAX_BYTES);
    const stored = await this.store(space, path, staged.name, user);
    response.status(stored.file.revision === 1 ? 201 : 200).json({ success: true, ...stored });
  }

  /**
   * The files of a multipart body into `folder` of `space`, one after another: 201 with them all, or the first
   * refusal's status with the files stored before it. `where` ends the audit record's detail (`into chat <id>`).
   */
  async multipart(request: Request, response: Response, space: FileSpaceRef, folder: string | undefined, user: string, where = ""): Promise<void> {
    const { UPLOAD_MAX_BYTES: maxBytes, UPLOAD_MAX_FILES: maxFiles } = this.context.config;
    const prefix = folder === undefined || folder.replace(/\/+$/, "") === "" ? "" : `${spacePath(folder.replace(/\/+$/, "").split("/"))}/`;
    const outcome = await multipartUpload(request, { maxBytes, maxFiles }, async (name, body) => {
      const path = spacePath(`${prefix}${name}`.split("/"));
      await this.check(space, path);
      const staged = await this.staging.stage(body, maxBytes);
      return this.store(space, path, staged.name, user);
    });
    noteAudit(response, { target: outcome.stored.map((stored) => stored.file.path).join(", "), detail: `${outcome.stored.length} files${where}` });
    if (outcome.failure) {
      // the files before the failure are stored: the answer says which, beside the error
      closeAfter(response);
      const error = toAppError(outcome.failure, response.locals["logger"] as Logger);
      response.status(httpStatusByCode[error.code]).json({ success: false, error: toErrorBody(error), files: outcome.stored });
      return;
    }
    response.status(201).json({ success: true, files: outcome.stored });
  }

  private async check(space: FileSpaceRef, path: string): Promise<void> {
    await callService(this.context, subjects.files("stat"), { space, paths: [path], for_write: true }, FilesStatReply);
  }

  private async store(space: FileSpaceRef, path: string, staged: string, user: string): Promise<StoredUpload> {
    const reply = await callService(this.context, subjects.files("upload"), { space, path, staged, author: { user } }, FilesUploadReply, {
      timeoutMs: this.context.config.UPLOAD_TIMEOUT_MS,
    });
    return { file: reply.file, ...(reply.markdown ? { markdown: reply.markdown } : {}) };
  }
}

/** Streams the request body into the uploads store; a declared length past the limit is refused before a byte is read. */
export async function stageBody(staging: UploadStaging, request: Request, response: Response, maxBytes: number): Promise<{ name: string; size: number }> {
  const declared = Number(request.headers["content-length"] ?? Number.NaN);
  try {
    if (declared > maxBytes) throw tooLarge(maxBytes);
    return await staging.stage(request, maxBytes);
  } catch (error) {
    // the rest of a refused body is not read: the connection closes after the answer
    closeAfter(response);
    throw error;
  }
}

function closeAfter(response: Response): void {
  response.set("connection", "close");
}
