import { createGunzip } from "node:zlib";
import type { Request } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import type { GitBody } from "@agent-orchestrator/shared/wire";
import type { UploadStaging } from "../uploads/upload-staging.js";

/** Bodies up to this size travel in the NATS message (base64); larger ones through the uploads store. */
export const inlineBodyMaxBytes = 64 * 1024;

/** A git request's body on its way to the tool-runner; `cutAt` when a push's body passed its limit and only its start goes. */
export interface GitRequestBody {
  body: GitBody;
  cutAt?: number;
}

/**
 * A git request's body, decompressed (git gzips large fetch requests, `Content-Encoding: gzip`), counted after
 * decompression against `maxBytes`: in the message when it is small, else streamed into the uploads store like an
 * upload (docs/uploads.md "How an upload travels"). Past `maxBytes` a push (`cut`) keeps only its start, so the
 * tool-runner refuses it in git's own report, which git shows; any other request is refused with 413. Nothing
 * past the limit is stored.
 */
export async function readGitRequestBody(request: Request, staging: UploadStaging, options: { maxBytes: number; cut: boolean }): Promise<GitRequestBody> {
  const encoding = (request.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (encoding !== "identity" && encoding !== "gzip" && encoding !== "x-gzip") throw new AppError("BAD_REQUEST", `A git request body in ${encoding} is not read (gzip or none)`);
  const source: AsyncIterable<Buffer> = encoding === "identity" ? request : request.pipe(createGunzip());
  const iterator = source[Symbol.asyncIterator]();
  const start: Buffer[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return { body: { inline: Buffer.concat(start).toString("base64") } };
      start.push(next.value);
      bytes += next.value.length;
      if (bytes > inlineBodyMaxBytes) break;
    }
  } catch (error) {
    throw new AppError("BAD_REQUEST", "The git request body could not be read (a damaged gzip stream?)", { cause: error });
  }
  const rest = async function* () {
    yield* start;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
  };
  try {
    const staged = await staging.stage(rest(), options.maxBytes);
    return { body: { staged: staged.name, bytes: staged.size } };
  } catch (error) {
    if (!AppError.is(error) || error.code !== "PAYLOAD_TOO_LARGE") throw error;
    if (!options.cut) throw new AppError("PAYLOAD_TOO_LARGE", `The git request is larger than ${options.maxBytes} bytes`);
    return { body: { inline: Buffer.concat(start).toString("base64") }, cutAt: options.maxBytes };
  }
}
