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

/** A branch's files as the files API lists them, or null for a project without a repository. */
export type BranchListing = Extract<BranchFilesReply, { success: true }>["files"];

/** A branch's files listed whole: every page's, in path order. */
export type WholeBranchListing = Omit<NonNullable<BranchListing>, "tree" | "next_after" | "truncated">;

/** Times a list starts again because the branch moved between its pages, before it is given up. */
const maxListRestarts = 3;

/**
 * The files API on a project's repository (docs/repositories.md "The files API on a repository"): a branch's files
 * listed whole, or null when the project has none (its stored files are shown then). The tool-runner answers a
 * page at a time (one NATS reply each); the pages are asked for one after another, and when the branch moved
 * between two of them (its tree is another) the list starts again, so the answer is one state's. `?branch=` on a
 * project without a repository is BRANCH_NOT_FOUND: no branch of it exists.
 */
export async function branchFiles(context: GatewayContext, project: string, query: { branch?: string | undefined; prefix?: string | undefined }): Promise<WholeBranchListing | null> {
  for (let attempt = 0; ; attempt++) {
    const first = await branchFilesPage(context, project, query);
    if (first === null) return null;
    const files = [...first.files];
    let page = first;
    while (page.next_after !== undefined && page.tree === first.tree) {
      const next = await branchFilesPage(context, project, { ...query, after: page.next_after });
      if (next === null) return null;
      if (next.files.length === 0 && next.next_after !== undefined) throw new AppError("INTERNAL", "A page of the branch's files held none");
      page = next;
      files.push(...page.files);
    }
    if (page.tree === first.tree) {
      const { truncated: _truncated, next_after: _next, tree: _tree, ...point } = first;
      return { ...point, files };
    }
    if (attempt + 1 >= maxListRestarts) throw new AppError("SERVICE_UNAVAILABLE", "The branch kept changing while its files were listed; try again");
  }
}

/** One page of a branch's files from the tool-runner: those after `after`, at most `limit`; null without a repository. */
export async function branchFilesPage(
  context: GatewayContext,
  project: string,
  query: { branch?: string | undefined; prefix?: string | undefined; after?: string | undefined; limit?: number | undefined },
): Promise<BranchListing> {
  const reply = await callService(context, subjects.repository("files"), { project_id: project, branch: query.branch, prefix: query.prefix, after: query.after, limit: query.limit }, BranchFilesReply);
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
