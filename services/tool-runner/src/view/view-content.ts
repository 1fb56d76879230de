import { AppError } from "@agent-orchestrator/shared/runtime";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { SandboxContext } from "../sandbox/sandbox-roots.js";
import type { ViewFile } from "./view-files.js";

/** Why a file of the view was not searched. */
export type SkipReason = "too large" | "binary" | "not readable";

/** A file's content for a pattern worker, or why there is none. */
export type ViewContent = { text: string } | { bytes: Uint8Array } | { skipped: SkipReason };

/**
 * The content of one file of the view, read as read_file would read it: a stored file's latest revision from
 * the store (its bytes, which the worker checks and decodes; they may be the store's cached copy, so they are
 * only read), an installed file through the sandbox's checked read, so no content comes from outside the
 * call's roots even through a symlink swapped since the index was built. A file over READ_MAX_BYTES is not read.
 */
export async function viewContent(sandbox: Sandbox, context: SandboxContext, file: ViewFile): Promise<ViewContent> {
  if (file.size > sandbox.readMaxBytes) return { skipped: "too large" };
  const { source } = file;
  if (source.kind === "stored") return { bytes: await sandbox.files.content(source.file.sha256) };
  if (source.kind === "tree") return { bytes: await source.view.repository.reader.blob(source.id) };
  try {
    const read = await sandbox.read(context, file.path);
    return { text: read.content };
  } catch (error) {
    if (!AppError.is(error)) throw error;
    if (error.code === "FILE_TOO_LARGE") return { skipped: "too large" };
    if (error.code === "BINARY_FILE") return { skipped: "binary" };
    return { skipped: "not readable" };
  }
}
