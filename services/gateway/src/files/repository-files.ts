import type { Request, Response } from "express";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { BranchFileReply, BranchFilesReply, subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { downloadHeaders } from "./file-download.js";
import { sendRawFile } from "./raw-file-response.js";
import { sendStagedBody, type StagedBodies } from "./staged-body.js";

/** What a read of a repository's file asks for: its text (JSON or `raw`), or its bytes. */
export interface BranchFileQuery {
  branch?: string | undefined;
  raw?: string | undefined;
  download?: string | undefined;
  revision?: number | undefined;
  revisions?: string | undefined;
}

/**
 * The files API on a project's repository (docs/repositories.md "The files API on a repository"): a branch's files
 * listed, or null when the project has none (its stored files are shown then). `?branch=` on a project without a
 * repository is BRANCH_NOT_FOUND: no branch of it exists.
 */
export async function branchFiles(context: GatewayContext, project: string, query: { branch?: string | undefined; prefix?: string | undefined }): Promise<Extract<BranchFilesReply, { success: true }>["files"]> {
  const reply = await callService(context, subjects.repository("files"), { project_id: project, branch: query.branch, prefix: query.prefix }, BranchFilesReply);
  if (reply.files === null && query.branch !== undefined) throw new AppError("BRANCH_NOT_FOUND", "The project has no git repository, so no branch");
  return reply.files;
}

/**
 * Answers a read of one file of the project's repository: its text as JSON or raw, or its bytes as a download;
 * false when the project has no repository (the caller reads its stored files). A repository's file has no
 * revisions here: its history is its branch's commits.
 */
export async function sendBranchFile(
  context: GatewayContext,
  staged: StagedBodies,
  exchange: { request: Request; response: Response },
  project: string,
  path: string,
  query: BranchFileQuery,
): Promise<boolean> {
  const { request, response } = exchange;
  const download = query.download !== undefined;
  const reply = await callService(context, subjects.repository("read"), { project_id: project, branch: query.branch, path, ...(download ? { download } : {}) }, BranchFileReply);
  const shown = reply.file;
  if (shown === null) {
    if (query.branch !== undefined) throw new AppError("BRANCH_NOT_FOUND", "The project has no git repository, so no branch");
    return false;
  }
  const { body, file, content, truncated, ...point } = shown;
  if (body !== undefined) {
    response.status(200).set(downloadHeaders(path, file.size));
    try {
      await sendStagedBody(response, body, staged);
    } catch (error) {
      // after the first byte the status cannot change: the download is cut, and the client sees it short
      (response.locals["logger"] as Logger).error({ err: error, path }, "download cut short");
      response.destroy();
    }
    return true;
  }
  // checked after the read, so a file missing on the branch says so first
  if (query.revision !== undefined || query.revisions !== undefined) {
    throw new AppError("BAD_REQUEST", `A file of the repository has no revisions here: its history is its branch's commits (GET /api/projects/:id/repository/branches/${point.branch}/commits)`);
  }
  const headers = { "x-repository-branch": point.branch, "x-repository-commit": point.commit };
  if (query.raw !== undefined || request.accepts(["application/json", "text/plain"]) === "text/plain") {
    sendRawFile(response, path, content ?? "", truncated === true, headers);
    return true;
  }
  response.json({ success: true, ...point, file, content: content ?? "", truncated: truncated === true });
  return true;
}
