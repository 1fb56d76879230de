import type { Request } from "express";
import busboy from "busboy";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type FileRevision } from "@agent-orchestrator/shared/wire";

/** One file of a multipart upload as stored: its revision and, for a converted document, its Markdown form's. */
export interface StoredUpload {
  file: FileRevision;
  markdown?: FileRevision;
}

/** What came of a multipart upload: the files stored, in order, and the failure that stopped it, if any. */
export interface MultipartOutcome {
  stored: StoredUpload[];
  failure?: AppError;
}

/**
 * Reads a `multipart/form-data` body (the web page's several files) with busboy, one file part after another,
 * each handed to `store` as a stream while it arrives (never whole in memory). A part's filename may hold
 * folders (`docs/notes.md`); the caller checks it as a path. The first failure stops the upload: the files
 * before it stay stored (each is its own revision), nothing after it is read. Fields other than files are
 * ignored.
 */
export function multipartUpload(
  request: Request,
  limits: { maxBytes: number; maxFiles: number },
  store: (name: string, body: AsyncIterable<Uint8Array>) => Promise<StoredUpload>,
): Promise<MultipartOutcome> {
  let parser: busboy.Busboy;
  try {
    // one byte past the limit, so the stream that reaches it is seen going past it, not cut silently
    parser = busboy({ headers: request.headers, preservePath: true, limits: { files: limits.maxFiles, fileSize: limits.maxBytes + 1, fields: 50, parts: limits.maxFiles + 50 } });
  } catch {
    return Promise.reject(new AppError("BAD_REQUEST", "Send the files as multipart/form-data"));
  }
  return new Promise((resolve) => {
    const stored: StoredUpload[] = [];
    let queue = Promise.resolve();
    let finished = false;
    const finish = (failure?: AppError) => {
      if (finished) return;
      finished = true;
      if (failure) request.unpipe(parser);
      resolve({ stored, ...(failure ? { failure } : {}) });
    };
    const fail = (error: unknown) => finish(AppError.is(error) ? error : new AppError("BAD_REQUEST", "The multipart body could not be read", { cause: error }));
    parser.on("file", (_field, stream, info) => {
      queue = queue.then(async () => {
        if (finished) {
          stream.resume();
          return;
        }
        try {
          stored.push(await store(info.filename ?? "", stream));
        } catch (error) {
          stream.resume();
          fail(error);
        }
      });
    });
    parser.on("filesLimit", () => {
      queue = queue.then(() => fail(new AppError("PAYLOAD_TOO_LARGE", `More than ${limits.maxFiles} files in one upload (UPLOAD_MAX_FILES); the files after it were not stored`)));
    });
    parser.on("error", fail);
    parser.on("close", () => {
      queue = queue.then(() => finish());
    });
    request.on("error", fail);
    request.pipe(parser);
  });
}
