import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Response } from "express";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { FilesStatReply, subjects, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import type { ContentReader } from "./content-reader.js";

/**
 * Sends one file of a project (its own or the code snapshot's), any bytes, as a download: the latest
 * revision's content streamed chunk by chunk from the contents store, as an attachment of type
 * `application/octet-stream` whatever its name, so a browser saves it and never renders it (an uploaded HTML
 * page or SVG runs nothing here). The file's name travels in `content-disposition`.
 */
export async function sendFileDownload(context: GatewayContext, contents: ContentReader, response: Response, space: FileSpaceRef, path: string): Promise<void> {
  const [file] = (await callService(context, subjects.files("stat"), { space, paths: [path] }, FilesStatReply)).files;
  if (!file) throw new AppError("FILE_NOT_FOUND", `File not found: ${path}`);
  response.status(200).set({ ...downloadHeaders(path, file.size), "x-file-revision": String(file.revision) });
  try {
    await pipeline(Readable.from(contents.chunks(file.sha256)), response);
  } catch (error) {
    // after the first byte the status cannot change: the download is cut, and the client sees it short
    (response.locals["logger"] as Logger).error({ err: error, path }, "download cut short");
    response.destroy();
  }
}

/** The headers of a download of `path`: bytes the browser saves under the file's name and never renders. */
export function downloadHeaders(path: string, size: number): Record<string, string> {
  const name = path.split("/").at(-1) ?? "download";
  return {
    "content-type": "application/octet-stream",
    "content-length": String(size),
    "content-disposition": `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    "content-security-policy": "default-src 'none'; sandbox",
    "cache-control": "no-store",
  };
}
