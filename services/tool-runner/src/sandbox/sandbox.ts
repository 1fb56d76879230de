import type { Stats } from "node:fs";
import { lstat, mkdir } from "node:fs/promises";
import path from "node:path";
import { readFileCapped } from "./file-reader.js";
import { LayoutCache } from "./layout-cache.js";
import type { ProjectLayout } from "./project-layout.js";
import { writeFileAtomically } from "./file-writer.js";
import { listFolder, type FolderEntry } from "./folder-lister.js";
import { fromFsError } from "./fs-error.js";
import { findProtectedSegment } from "./protected-names.js";
import { resolveRealLocation } from "./real-location.js";
import { RootRealPaths } from "./root-real-paths.js";
import { accessDenied, errnoCode, sandboxError } from "./sandbox-error.js";
import type { SandboxHooks } from "./sandbox-hooks.js";
import {
  matchRoot,
  pinRoots,
  rootsForContext,
  sessionFolderPath,
  type ContextRoots,
  type PinnedRoots,
  type SandboxContext,
} from "./sandbox-roots.js";
import { decodeText } from "./text-content.js";
import { relativeInside } from "./containment.js";
import { resolveVirtualPath, toVirtualPath } from "./virtual-path.js";
import { assertWritableTarget, prepareParentDirectories } from "./write-path.js";

/** The sandbox's configuration: its two roots and its size limits. */
export interface SandboxOptions {
  /** BMAD_ROOT: the BMAD project (its `_bmad/`, `.bmad-core/` or `bmad/`, and the tool folders' skills) */
  projectRoot: string;
  /** OUTPUT_ROOT; sessions live in `<outputRoot>/<session_id>` */
  outputRoot: string;
  readMaxBytes: number;
  writeMaxBytes: number;
  listMaxEntries: number;
  hooks?: SandboxHooks;
}

/** A text file read for the model. */
export interface SandboxReadResult {
  /** virtual, e.g. `{bundle-root}/config.yaml` */
  path: string;
  content: string;
  /** the file's size in bytes */
  size: number;
  truncated: boolean;
}

/** A file saved for the model. */
export interface SandboxWriteResult {
  /** virtual, always `{session-folder}/…` */
  path: string;
  size: number;
}

/** A write checked by `prepareWrite`: the file it will make, and the step that writes it. */
export interface PreparedWrite extends SandboxWriteResult {
  commit(): Promise<SandboxWriteResult>;
}

/** A folder listed for the model. */
export interface SandboxListResult {
  path: string;
  entries: FolderEntry[];
  truncated: boolean;
  /** names left out because the tools could not open them (servable-name.ts) */
  unservable: number;
}

// Names in the session folder the system keeps for itself: the manifest, its lock and temp files.
const systemFileName = /^manifest\.json/i;

/** Opens a sandbox: pins the roots once (docs/security.md "The sandbox algorithm", step 2) and detects the project's layout. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const pinned = await pinRoots(options);
  const layouts = new LayoutCache(pinned.projectRoot);
  await layouts.current();
  return new Sandbox(pinned, options, layouts);
}

/**
 * The safe-path module: every file access the model asks for goes through here (docs/security.md "The sandbox algorithm").
 * Reads may land under the bundle root, the core root and the session folder (plus, for an installed bundle,
 * every BMAD tree, skill folder and knowledge folder of the project); writes only under the session folder. Policy for symlinks: a read follows a link only when its
 * real target is in a readable root (inside → inside is allowed); a write never goes through a link.
 * Errors carry a code and a message with virtual paths only; host paths are in `detail`, for the log.
 */
export class Sandbox {
  constructor(
    private readonly pinned: PinnedRoots,
    private readonly options: SandboxOptions,
    private readonly layouts: LayoutCache,
    private readonly realPaths = new RootRealPaths(),
  ) {}

  /** The realpath of `{project-root}`. */
  get projectRoot(): string {
    return this.pinned.projectRoot;
  }

  /** The roots of one call, for callers that show paths (preload_workflow, load_skill). */
  roots(context: SandboxContext): Promise<ContextRoots> {
    return rootsForContext(this.pinned, this.layouts, this.realPaths, context);
  }

  /** The project's BMAD trees, skill folders and knowledge folders (cached; `refresh` re-detects unless just done). */
  layout(options: { refresh?: boolean } = {}): Promise<ProjectLayout> {
    return options.refresh ? this.layouts.refresh() : this.layouts.current();
  }

  /** Reads a text file of at most READ_MAX_BYTES. */
  async read(context: SandboxContext, input: string): Promise<SandboxReadResult> {
    const located = await this.locate(context, input);
    const maxBytes = this.options.readMaxBytes;
    try {
      const { stats, realPath, virtualPath, detail } = located;
      if (stats.isDirectory()) throw sandboxError("NOT_A_FILE", `Not a file: ${virtualPath} is a folder; use list_files`);
      if (!stats.isFile()) throw sandboxError("NOT_A_REGULAR_FILE", `Not a regular file: ${virtualPath}`, detail);
      if (stats.nlink > 1) throw accessDenied("ACCESS_DENIED", { ...detail, reason: "file has other hard links" });
      if (stats.size > maxBytes) {
        throw sandboxError("FILE_TOO_LARGE", `File too large: ${virtualPath} is ${stats.size} bytes; the limit is ${maxBytes}`);
      }
      await this.options.hooks?.beforeOpen?.(realPath);
      const read = await readFileCapped(realPath, stats, maxBytes);
      const content = decodeText(read.bytes);
      if (content === undefined) throw sandboxError("BINARY_FILE", `Binary file: ${virtualPath}; only text files can be read`);
      return { path: virtualPath, content, size: read.size, truncated: read.truncated };
    } catch (error) {
      throw fromFsError(error, located.virtualPath, "read", located.detail);
    }
  }

  /** Lists a folder, at most LIST_MAX_ENTRIES entries. */
  async list(context: SandboxContext, input: string): Promise<SandboxListResult> {
    const located = await this.locate(context, input, "list");
    try {
      const { stats, realPath, virtualPath, detail, roots } = located;
      if (!stats.isDirectory()) throw sandboxError("INVALID_PATH", `Not a folder: ${virtualPath}`, detail);
      await this.options.hooks?.beforeOpen?.(realPath);
      const listing = await listFolder(realPath, stats, roots.readable, this.options.listMaxEntries);
      return { path: virtualPath, ...listing };
    } catch (error) {
      throw fromFsError(error, located.virtualPath, "list", located.detail);
    }
  }

  /** Writes (creates or replaces) a text file under the session folder, atomically. */
  async write(context: SandboxContext, input: string, content: string): Promise<SandboxWriteResult> {
    return (await this.prepareWrite(context, input, content)).commit();
  }

  /**
   * Checks a write without touching the disk (shape, containment, protected names, size) and names the file
   * it would make, so a caller can admit it (the session quota) before `commit` writes it.
   */
  async prepareWrite(context: SandboxContext, input: string, content: string): Promise<PreparedWrite> {
    const roots = await rootsForContext(this.pinned, this.layouts, this.realPaths, context);
    const hostPath = resolveVirtualPath(input, roots.lexical);
    const detail = { session_id: context.session_id, input, hostPath };
    const relative = relativeInside(roots.session.lexical, hostPath);
    if (relative === undefined) {
      const elsewhere = matchRoot(roots.readable, hostPath, "lexical");
      throw accessDenied(elsewhere ? "PROTECTED_PATH" : "PATH_OUTSIDE_ROOT", detail, "files can only be saved under {session-folder}");
    }
    if (relative === "") throw sandboxError("NOT_A_FILE", "Not a file: {session-folder} is a folder");
    const segments = relative.split(path.sep);
    if (findProtectedSegment(relative) !== undefined || systemFileName.test(segments[0] ?? "")) {
      throw accessDenied("PROTECTED_PATH", detail);
    }
    const bytes = Buffer.from(content, "utf8");
    if (bytes.length > this.options.writeMaxBytes) {
      throw sandboxError("CONTENT_TOO_LARGE", `Content too large: ${bytes.length} bytes; the limit is ${this.options.writeMaxBytes}`);
    }
    const virtualPath = toVirtualPath(hostPath, roots.lexical) ?? "{session-folder}";
    const written = { path: virtualPath, size: bytes.length };
    const commit = async (): Promise<SandboxWriteResult> => {
      try {
        const sessionFolder = await this.sessionFolder(context.session_id);
        const parent = await prepareParentDirectories(sessionFolder, segments.slice(0, -1), detail);
        const name = segments[segments.length - 1] ?? "";
        await assertWritableTarget(path.join(parent, name), sessionFolder, detail);
        await writeFileAtomically(parent, name, bytes, this.options.hooks);
        return written;
      } catch (error) {
        throw fromFsError(error, virtualPath, "write", detail);
      }
    };
    return { ...written, commit };
  }

  /**
   * The session's folder, created if missing (one `mkdir` in the pinned output root) unless `create` is
   * false, refused if anything but a plain directory is there. Returns its host path; ENOENT when missing.
   */
  async sessionFolder(sessionId: string, options: { create: boolean } = { create: true }): Promise<string> {
    const folder = sessionFolderPath(this.pinned, sessionId);
    if (options.create) {
      await mkdir(folder).catch((error: unknown) => {
        if (errnoCode(error) !== "EEXIST") throw error;
      });
    }
    const stats = await lstat(folder);
    if (!stats.isDirectory()) throw accessDenied("SYMLINK_ESCAPE", { reason: "session folder is not a plain directory", folder });
    return folder;
  }

  /** Steps 1–4 for a read or a listing: shape, variables, containment, protected names, real location. */
  private async locate(context: SandboxContext, input: string, operation: "read" | "list" = "read") {
    const roots = await rootsForContext(this.pinned, this.layouts, this.realPaths, context);
    const hostPath = resolveVirtualPath(input, roots.lexical);
    const detail: Record<string, unknown> = { session_id: context.session_id, input, hostPath };
    const lexical = matchRoot(roots.readable, hostPath, "lexical");
    if (!lexical) throw accessDenied("PATH_OUTSIDE_ROOT", detail);
    if (findProtectedSegment(lexical.relative) !== undefined) throw accessDenied("PROTECTED_PATH", detail);
    const virtualPath = toVirtualPath(hostPath, roots.lexical) ?? "(unknown)";
    let stats: Stats;
    let realPath: string;
    try {
      const location = await resolveRealLocation(hostPath);
      realPath = location.realPath;
      const real = matchRoot(roots.readable, realPath, "real");
      detail["realPath"] = realPath;
      if (!location.exists && !location.danglingSymlink && real) {
        throw sandboxError("FILE_NOT_FOUND", `${operation === "list" ? "Folder" : "File"} not found: ${virtualPath}`);
      }
      if (!location.exists || !real) throw accessDenied("SYMLINK_ESCAPE", detail);
      if (findProtectedSegment(real.relative) !== undefined) throw accessDenied("PROTECTED_PATH", detail);
      stats = await lstat(realPath);
    } catch (error) {
      throw fromFsError(error, virtualPath, operation, detail);
    }
    return { roots, stats, realPath, virtualPath, detail };
  }
}
