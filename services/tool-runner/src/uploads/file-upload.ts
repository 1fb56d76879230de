import { readFile } from "node:fs/promises";
import type { FileRevision, FilesUploadReply, FileAuthor, FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { claimedFormat, type DocumentConverter } from "../convert/index.js";
import type { FileChange } from "../store/file-change.js";
import type { FileStore } from "../store/file-store.js";
import type { StagedUploads } from "../store/staged-uploads.js";

/** What an upload's checks and conversion need. */
export interface FileUploadDeps {
  files: FileStore;
  staged: StagedUploads;
  /** a path a member may write (ProjectFiles.writablePath), or throws why not */
  writablePath: (space: FileSpaceRef, input: string) => Promise<string>;
  /** turns documents into Markdown, a few at a time, users taking turns (its limits: CONVERT_*) */
  converter: DocumentConverter;
  /** the largest document converted (CONVERT_MAX_BYTES): a larger one is not even read into memory */
  convertMaxBytes: number;
}

/**
 * One uploaded file becomes the next revision of its path (docs/uploads.md "Uploads"): taken from the staging
 * store onto local disk while hashing it, stored by content in windows (never whole in memory), and when it is
 * a document (PDF, DOCX, HTML) converted to Markdown beside it (`brief.pdf.md`) in the same commit, so the
 * original and its Markdown form appear together. A document that cannot be converted is stored anyway, with
 * the reason on its revision. The staged upload is removed whatever happens.
 */
export async function uploadFile(deps: FileUploadDeps, request: { space: FileSpaceRef; path: string; staged: string; author: FileAuthor }): Promise<FilesUploadReply> {
  try {
    const path = await deps.writablePath(request.space, request.path);
    const received = await deps.staged.receive(request.staged);
    try {
      const stored = await deps.files.storeFile(received.file, received.sha256, received.size);
      const changes: FileChange[] = [{ path, content: stored }];
      // a file named as a document is converted, or stored with why not (a `.pdf` that is not a PDF)
      if (claimedFormat(path) !== undefined) {
        const markdownPath = await deps.writablePath(request.space, `${path}.md`);
        const conversion =
          received.size > deps.convertMaxBytes
            ? { kind: "failed" as const, reason: `too large to convert: ${received.size} bytes; the limit is ${deps.convertMaxBytes}` }
            : await deps.converter.convert(path, await readFile(received.file), request.author.user);
        if (conversion.kind === "markdown") {
          changes[0] = { path, content: stored, notes: { conversion: { markdown_path: markdownPath } } };
          changes.push({ path: markdownPath, content: Buffer.from(conversion.markdown, "utf8"), notes: { converted_from: path } });
        } else if (conversion.kind === "failed") {
          changes[0] = { path, content: stored, notes: { conversion: { error: conversion.reason } } };
        }
      }
      const [file, markdown] = (await deps.files.apply(request.space, changes, request.author)) as [FileRevision, FileRevision | undefined];
      return { success: true, file, ...(markdown ? { markdown } : {}) };
    } finally {
      await received.discard();
    }
  } finally {
    await deps.staged.remove(request.staged);
  }
}
