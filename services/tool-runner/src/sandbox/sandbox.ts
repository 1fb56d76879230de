import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { AppError, relativeInside } from "@agent-orchestrator/shared/runtime";
import { type FileAuthor, type FileRevision, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import type { FileStore } from "../store/file-store.js";
import { chatTreeOf, type ChatTree, type TreeView, type WorkingTrees } from "../repository/index.js";
import { liveFiles, type LoadedIndex } from "../store/space-index.js";
import { learnRepositoryMark } from "../migrations/repository-mark-migration.js";
import { sourceWriteVerdict, type LoadedSource } from "../store/source-snapshots.js";
import { projectOutputPlaces } from "./output-folders.js";
import { readFileCapped } from "./file-reader.js";
import { LayoutCache } from "./layout-cache.js";
import type { ProjectLayout } from "./project-layout.js";
import { listFolder, type FolderEntry } from "./folder-lister.js";
import { fromFsError } from "./fs-error.js";
import { findProtectedSegment } from "../paths/protected-names.js";
import { resolveRealLocation } from "./real-location.js";
import { RootRealPaths } from "./root-real-paths.js";
import { accessDenied, sandboxError } from "../paths/sandbox-error.js";
import type { SandboxHooks } from "./sandbox-hooks.js";
import { matchRoot, pinRoots, rootsForContext, type ContextRoots, type PinnedRoots, type SandboxContext } from "./sandbox-roots.js";
import { isServableName, isServablePath } from "../paths/servable-name.js";
import { decodeText } from "./text-content.js";
import { resolveVirtualPath, toVirtualPath } from "./virtual-path.js";
import { listTreeFolder, modifyTreeFile, readTreeFile, writeTreeFile } from "./working-tree-files.js";

/** The sandbox's configuration: the installed BMAD files, the store of every project's own files, and size limits. */
export interface SandboxOptions {
  /** BMAD_ROOT: the BMAD install every project shares (its `_bmad/`, `.bmad-core/` or `bmad/`, and the tool folders' skills) */
  projectRoot: string;
  /** the projects' and chats' own files, and each project's code snapshot */
  files: FileStore;
  /** the working trees of projects with a git repository (docs/repositories.md); without it, no project has one */
  trees?: WorkingTrees;
  /** told of every file a tool wrote into a working tree, once it is stored (the audit log's `file_written`); never awaited */
  onTreeWritten?: (space: FileSpaceRef, written: readonly FileRevision[], author: FileAuthor) => void;
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
  /** the revision read, for a project's or chat's own file */
  revision?: number;
  /** a document's Markdown form: the virtual path of the document it was converted from */
  converted_from?: string;
}

/** A file saved for the model: its virtual path and the revision it became. */
export interface SandboxWriteResult {
  path: string;
  size: number;
  revision: number;
}

/** A folder listed for the model. */
export interface SandboxListResult {
  path: string;
  entries: FolderEntry[];
  truncated: boolean;
  /** names left out because the tools could not open them (servable-name.ts) */
  unservable: number;
}

/** Where a path the model gave lands: an installed BMAD file on disk, or a file of the store. */
export type Location =
  | { kind: "installed"; hostPath: string; virtualPath: string; roots: ContextRoots; detail: Record<string, unknown> }
  /** `index`: the project's index as `locate` read it (a chat's scratch space is not read there) */
  | { kind: "stored"; space: FileSpaceRef; path: string; virtualPath: string; roots: ContextRoots; detail: Record<string, unknown>; index?: LoadedIndex }
  /** a file of the project's git repository, in the chat's working tree (docs/repositories.md) */
  | { kind: "tree"; chat: ChatTree; view: TreeView; path: string; virtualPath: string; roots: ContextRoots; detail: Record<string, unknown> }
  /** a folder of the project that only leads to installed folders (`.claude`, `bmad` of a custom bundle) */
  | { kind: "passage"; hostPath: string; virtualPath: string; roots: ContextRoots; detail: Record<string, unknown> };

/** Opens a sandbox: pins the root once (docs/security.md "The sandbox algorithm", step 2) and detects the install's layout. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const pinned = await pinRoots(options);
  const layouts = new LayoutCache(pinned.projectRoot);
  await layouts.current();
  return new Sandbox(pinned, options, layouts);
}

/**
 * The safe-path module: every file access the model asks for goes through here (docs/security.md "The sandbox
 * algorithm", docs/projects.md "Paths"). `{project-root}` is the project as BMAD expects it: its installed BMAD
 * folders (BMAD trees, skill folders, the bundle and core) are read-only files of BMAD_ROOT on disk; everything
 * else under it is the project's own files in the store; `{session-folder}` is the chat's scratch space in the
 * store. Writes go to the store only, never to disk. Policy for symlinks on disk: a read follows a link only
 * when its real target is in an installed root. Errors carry a code and a message with virtual paths only;
 * host paths are in `detail`, for the log.
 */
export class Sandbox {
  constructor(
    private readonly pinned: PinnedRoots,
    private readonly options: SandboxOptions,
    private readonly layouts: LayoutCache,
    private readonly realPaths = new RootRealPaths(),
  ) {}

  /** The realpath of BMAD_ROOT, whose installed folders every `{project-root}` shows. */
  get projectRoot(): string {
    return this.pinned.projectRoot;
  }

  /** READ_MAX_BYTES: no file larger is read, nor searched (it could never be read). */
  get readMaxBytes(): number {
    return this.options.readMaxBytes;
  }

  /** The store of the projects' and chats' own files. */
  get files(): FileStore {
    return this.options.files;
  }

  /** The roots of one call, for callers that show paths (preload_workflow, load_skill, run_script). */
  roots(context: SandboxContext): Promise<ContextRoots> {
    return rootsForContext(this.pinned, this.layouts, this.realPaths, context);
  }

  /** The install's BMAD trees, skill folders and knowledge folders (cached; `refresh` re-detects unless just done). */
  layout(options: { refresh?: boolean } = {}): Promise<ProjectLayout> {
    return options.refresh ? this.layouts.refresh() : this.layouts.current();
  }

  /** Reads a text file of at most READ_MAX_BYTES: the latest revision of a stored file, or an installed one. */
  async read(context: SandboxContext, input: string): Promise<SandboxReadResult> {
    const located = await this.locate(context, input, "read");
    if (located.kind === "passage") throw sandboxError("NOT_A_FILE", `Not a file: ${located.virtualPath} is a folder; use list_files`);
    if (located.kind === "installed") return this.readInstalled(located);
    if (located.kind === "tree") {
      if (located.path === "") throw sandboxError("NOT_A_FILE", `Not a file: ${located.virtualPath} is a folder; use list_files`);
      const read = await readTreeFile(located, this.options.readMaxBytes);
      return { path: located.virtualPath, content: read.content, size: read.size, truncated: false, revision: read.revision };
    }
    const index = located.index ?? (await this.options.files.index(located.space));
    const found = index.files.get(located.path);
    const own = found?.deleted === true ? undefined : found;
    // the code snapshot is looked at only for a path the project has no file of its own at
    const source = own ? undefined : await this.source(located.space);
    const file = own ?? source?.files.get(located.path);
    if (!file) {
      const prefix = `${located.path}/`;
      if (located.path === "" || source?.folders.has(located.path) === true || liveFiles(index).some((one) => one.path.startsWith(prefix))) {
        throw sandboxError("NOT_A_FILE", `Not a file: ${located.virtualPath} is a folder; use list_files`);
      }
      throw sandboxError("FILE_NOT_FOUND", `File not found: ${located.virtualPath}`);
    }
    return this.readStored(located.virtualPath, file);
  }

  /**
   * Reads an installed BMAD file with every check of `read`, and nothing else: a path that lands anywhere but an
   * installed root (a project's or a chat's file, a folder that only leads to installed ones) is FILE_NOT_FOUND.
   * For the install as MCP resources (docs/openai-api.md "Resources"), which no project's files may answer.
   */
  async readInstalledOnly(context: SandboxContext, input: string): Promise<SandboxReadResult> {
    const located = await this.locate(context, input, "read");
    if (located.kind !== "installed") throw sandboxError("FILE_NOT_FOUND", `File not found: ${located.virtualPath}`);
    return this.readInstalled(located);
  }

  /** Lists a folder, at most LIST_MAX_ENTRIES entries. */
  async list(context: SandboxContext, input: string): Promise<SandboxListResult> {
    const located = await this.locate(context, input, "list");
    if (located.kind === "installed") return this.listInstalled(located);
    const { listMaxEntries } = this.options;
    const folders = new Map<string, FolderEntry>();
    let found = located.kind === "passage";
    let unservable = 0;
    // the installed folders below this one (at `{project-root}`: `_bmad`, `.claude`, …)
    const here = located.kind === "passage" ? located.hostPath : path.join(located.roots.lexical.project, located.path);
    if (located.kind === "passage" || located.kind === "tree" || located.space.kind === "project") {
      for (const root of located.roots.installed) {
        const below = relativeInside(here, root.lexical);
        if (below === undefined || below === "") continue;
        const name = below.split(path.sep)[0] ?? "";
        folders.set(name, { name, type: "directory", size: 0 });
        found = true;
      }
    }
    if (located.kind === "tree") {
      const listed = await listTreeFolder(located);
      for (const entry of listed?.entries ?? []) if (!folders.has(entry.name)) folders.set(entry.name, entry);
      unservable += listed?.unservable ?? 0;
      found ||= listed !== undefined || located.path === "";
    }
    if (located.kind === "stored") {
      const prefix = located.path === "" ? "" : `${located.path}/`;
      const own = liveFiles(located.index ?? (await this.options.files.index(located.space)));
      const source = await this.source(located.space);
      // the project's own files, then its code snapshot's (read-only), one entry per name
      for (const [files, readOnly] of [[own, false], [source?.files.values() ?? [], true]] as const) {
        for (const file of files) {
          if (file.path === located.path) throw sandboxError("INVALID_PATH", `Not a folder: ${located.virtualPath}`);
          if (!file.path.startsWith(prefix)) continue;
          found = true;
          const rest = file.path.slice(prefix.length);
          const name = rest.split("/")[0] ?? "";
          if (folders.has(name) || findProtectedSegment(name) !== undefined) continue;
          if (!isServableName(name)) {
            unservable += 1;
            continue;
          }
          if (rest.includes("/")) folders.set(name, { name, type: "directory", size: 0 });
          else folders.set(name, { name, type: "file", size: file.size, ...(readOnly ? { read_only: true as const } : {}) });
        }
      }
      if (!found && located.path === "") found = true;
    }
    if (!found) throw sandboxError("FILE_NOT_FOUND", `Folder not found: ${located.virtualPath}`);
    const entries = [...folders.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { path: located.virtualPath, entries: entries.slice(0, listMaxEntries), truncated: entries.length > listMaxEntries, unservable };
  }

  /**
   * Saves a text file as a new revision of the project's own file or of the chat's scratch file it names,
   * after the checks: shape, containment, protected names, installed files read-only, size. The quota is
   * enforced by the store in the same compare-and-set that records the write.
   */
  async write(context: SandboxContext, input: string, content: string, author: FileAuthor): Promise<SandboxWriteResult> {
    const located = await this.writable(context, input);
    const bytes = Buffer.from(content, "utf8");
    if (bytes.length > this.options.writeMaxBytes) {
      throw sandboxError("CONTENT_TOO_LARGE", `Content too large: ${bytes.length} bytes; the limit is ${this.options.writeMaxBytes}`);
    }
    if (located.kind === "tree") {
      const revision = await writeTreeFile(this.requiredTrees(), located, bytes, author);
      this.treeWritten(located, revision, bytes.length, author);
      return { path: located.virtualPath, size: bytes.length, revision };
    }
    const written = await this.options.files.write(located.space, located.path, bytes, author);
    return { path: located.virtualPath, size: written.size, revision: written.revision };
  }

  /**
   * Changes a text file from its latest revision (an edit, an append) with the checks of `write`: `change`
   * gets the file's text (undefined when there is none) and returns the new text, or throws to refuse, in
   * which case nothing is written. The change is made from the very revision it is given (FileStore.modify),
   * so it never drops another writer's revision; the result is one new revision.
   */
  async modify(
    context: SandboxContext,
    input: string,
    change: (current: string | undefined, virtualPath: string) => string,
    author: FileAuthor,
  ): Promise<SandboxWriteResult> {
    const located = await this.writable(context, input);
    const { readMaxBytes, writeMaxBytes } = this.options;
    if (located.kind === "tree") {
      const changed = await modifyTreeFile(
        this.requiredTrees(),
        located,
        (current) => {
          const bytes = Buffer.from(change(current, located.virtualPath), "utf8");
          if (bytes.length > writeMaxBytes) {
            throw sandboxError("CONTENT_TOO_LARGE", `Content too large: ${located.virtualPath} would be ${bytes.length} bytes; the limit is ${writeMaxBytes}`);
          }
          return bytes;
        },
        { readMaxBytes },
        author,
      );
      this.treeWritten(located, changed.revision, changed.size, author);
      return { path: located.virtualPath, size: changed.size, revision: changed.revision };
    }
    const written = await this.options.files.modify(
      located.space,
      located.path,
      (current) => {
        let text: string | undefined;
        if (current) {
          if (current.file.size > readMaxBytes) {
            throw fileTooLarge(located.virtualPath, current.file.size, readMaxBytes);
          }
          text = decodeText(current.content);
          if (text === undefined) throw sandboxError("BINARY_FILE", `Binary file: ${located.virtualPath}; only text files can be changed`);
        }
        const bytes = Buffer.from(change(text, located.virtualPath), "utf8");
        if (bytes.length > writeMaxBytes) {
          throw sandboxError("CONTENT_TOO_LARGE", `Content too large: ${located.virtualPath} would be ${bytes.length} bytes; the limit is ${writeMaxBytes}`);
        }
        return bytes;
      },
      author,
    );
    return { path: located.virtualPath, size: written.size, revision: written.revision };
  }

  /** The checks of a write without writing: where `input` lands in the store. */
  async writable(context: SandboxContext, input: string): Promise<Extract<Location, { kind: "stored" | "tree" }>> {
    const located = await this.locate(context, input, "write");
    if (located.kind !== "stored" && located.kind !== "tree") {
      throw accessDenied("PROTECTED_PATH", located.detail, "installed BMAD files are read-only; save under {output_folder}, {project-root}/docs or {session-folder}");
    }
    if (located.path === "") throw sandboxError("NOT_A_FILE", `Not a file: ${located.virtualPath} is a folder`);
    if (!isServablePath(located.path)) throw sandboxError("INVALID_PATH", "Invalid path: the name holds characters files may not have");
    if (located.kind === "tree") return located;
    const why = await sourceWriteVerdict(await this.source(located.space), located.path, () => this.outputPlaces());
    if (why !== undefined) {
      throw accessDenied("PROTECTED_PATH", { ...located.detail, reason: "code snapshot" }, `${located.virtualPath} is ${why}; save under {output_folder} or {session-folder}`);
    }
    return located;
  }

  /** The project's code snapshot when `space` is a project and has one (docs/uploads.md "A code snapshot"). */
  async source(space: FileSpaceRef): Promise<LoadedSource | undefined> {
    return space.kind === "project" ? this.options.files.sources.current(space.id) : undefined;
  }

  /** BMAD's output places in the project, where a code snapshot's folders stay writable. */
  async outputPlaces(): Promise<string[]> {
    return projectOutputPlaces(await this.layouts.current(), this.pinned.projectRoot);
  }

  /**
   * Steps 1–3 for any operation: shape, variables, containment, protected names; then which place the path
   * lands in. An installed path is also checked on disk (step 4: its real location stays in an installed root).
   */
  async locate(context: SandboxContext, input: string, operation: "read" | "list" | "write"): Promise<Location> {
    const roots = await rootsForContext(this.pinned, this.layouts, this.realPaths, context);
    const hostPath = resolveVirtualPath(input, roots.lexical);
    const detail: Record<string, unknown> = { session_id: context.session_id, project_id: context.project_id, input, hostPath };
    const virtualPath = toVirtualPath(hostPath, roots.lexical) ?? "(unknown)";
    const inSession = relativeInside(roots.lexical.session, hostPath);
    if (inSession !== undefined) return this.stored({ kind: "session", id: context.session_id }, inSession, { virtualPath, roots, detail });
    const installed = matchRoot(roots.installed, hostPath, "lexical");
    if (installed) {
      if (findProtectedSegment(installed.relative) !== undefined) throw accessDenied("PROTECTED_PATH", detail);
      if (operation === "write") throw accessDenied("PROTECTED_PATH", detail, "installed BMAD files are read-only; save under {output_folder}, {project-root}/docs or {session-folder}");
      return { kind: "installed", hostPath, virtualPath, roots, detail };
    }
    const inProject = relativeInside(roots.lexical.project, hostPath);
    if (inProject === undefined) throw accessDenied("PATH_OUTSIDE_ROOT", detail);
    if (isInstallPlace(inProject.split(path.sep).join("/"))) {
      // BMAD's own places: only what is installed (and readable for this agent) is there, never a project file
      const leads = roots.installed.some((root) => (relativeInside(hostPath, root.lexical) ?? "") !== "");
      if (operation === "list" && leads) return { kind: "passage", hostPath, virtualPath, roots, detail };
      if (operation === "write") throw accessDenied("PROTECTED_PATH", detail, "BMAD's install folders are read-only; save under {output_folder}, {project-root}/docs or {session-folder}");
      throw accessDenied("PATH_OUTSIDE_ROOT", detail);
    }
    const located = this.stored({ kind: "project", id: context.project_id }, inProject, { virtualPath, roots, detail });
    const index = await this.options.files.index(located.space);
    // the project's index says whether it has a repository (docs/repositories.md "The index's mark"): only a marked index,
    // or one whose mark is not known yet, asks the repositories' bucket
    const { trees } = this.options;
    if (!trees || index.repository === null) return { ...located, index };
    const chat = chatTreeOf(context);
    const view = await trees.view(chat);
    if (index.repository === undefined && index.kvRevision !== 0) {
      await learnRepositoryMark(this.options.files, context.project_id, index, view?.repository.record.generation ?? null);
    }
    return view ? { kind: "tree", chat, view, path: located.path, virtualPath, roots, detail } : { ...located, index };
  }

  /** The chat's working tree when its project has a git repository (docs/repositories.md), else undefined. */
  workingTree(context: SandboxContext): Promise<TreeView | undefined> {
    return this.options.trees?.view(chatTreeOf(context)) ?? Promise.resolve(undefined);
  }

  /** Tells `onTreeWritten` of one file written into a working tree, as a revision of the working tree. */
  private treeWritten(located: Extract<Location, { kind: "tree" }>, revision: number, size: number, author: FileAuthor): void {
    const written: FileRevision = { path: located.path, revision, size, sha256: "", author, updated_at: new Date().toISOString() };
    this.options.onTreeWritten?.({ kind: "project", id: located.chat.project }, [written], author);
  }

  /** The working trees, for a location that is in one (there is one only when they are given). */
  private requiredTrees(): WorkingTrees {
    if (!this.options.trees) throw new AppError("INTERNAL", "A working tree's file without working trees");
    return this.options.trees;
  }

  private stored(
    space: FileSpaceRef,
    relative: string,
    found: { virtualPath: string; roots: ContextRoots; detail: Record<string, unknown> },
  ): Extract<Location, { kind: "stored" }> {
    if (findProtectedSegment(relative) !== undefined) throw accessDenied("PROTECTED_PATH", found.detail);
    return { kind: "stored", space, path: relative.split(path.sep).join("/"), ...found };
  }

  private async readStored(virtualPath: string, file: FileRevision): Promise<SandboxReadResult> {
    const maxBytes = this.options.readMaxBytes;
    if (file.size > maxBytes) throw fileTooLarge(virtualPath, file.size, maxBytes);
    const content = decodeText(await this.options.files.content(file.sha256));
    if (content === undefined) {
      // an uploaded document: its text is in the Markdown form beside it (docs/uploads.md)
      const markdown = file.conversion && "markdown_path" in file.conversion ? `; its text is in ${virtualPath}.md` : "";
      throw sandboxError("BINARY_FILE", `Binary file: ${virtualPath}; only text files can be read${markdown}`);
    }
    const from = file.converted_from === undefined ? {} : { converted_from: `{project-root}/${file.converted_from}` };
    return { path: virtualPath, content, size: file.size, truncated: false, revision: file.revision, ...from };
  }

  private async readInstalled(located: Extract<Location, { kind: "installed" }>): Promise<SandboxReadResult> {
    const { stats, realPath } = await this.onDisk(located, "read");
    const { virtualPath, detail } = located;
    const maxBytes = this.options.readMaxBytes;
    try {
      if (stats.isDirectory()) throw sandboxError("NOT_A_FILE", `Not a file: ${virtualPath} is a folder; use list_files`);
      if (!stats.isFile()) throw sandboxError("NOT_A_REGULAR_FILE", `Not a regular file: ${virtualPath}`, detail);
      if (stats.nlink > 1) throw accessDenied("ACCESS_DENIED", { ...detail, reason: "file has other hard links" });
      if (stats.size > maxBytes) {
        throw fileTooLarge(virtualPath, stats.size, maxBytes);
      }
      await this.options.hooks?.beforeOpen?.(realPath);
      const read = await readFileCapped(realPath, stats, maxBytes);
      const content = decodeText(read.bytes);
      if (content === undefined) throw sandboxError("BINARY_FILE", `Binary file: ${virtualPath}; only text files can be read`);
      return { path: virtualPath, content, size: read.size, truncated: read.truncated };
    } catch (error) {
      throw fromFsError(error, virtualPath, "read", detail);
    }
  }

  private async listInstalled(located: Extract<Location, { kind: "installed" }>): Promise<SandboxListResult> {
    const { stats, realPath } = await this.onDisk(located, "list");
    const { virtualPath, detail, roots } = located;
    try {
      if (!stats.isDirectory()) throw sandboxError("INVALID_PATH", `Not a folder: ${virtualPath}`, detail);
      await this.options.hooks?.beforeOpen?.(realPath);
      const listing = await listFolder(realPath, stats, roots.installed, this.options.listMaxEntries);
      return { path: virtualPath, ...listing };
    } catch (error) {
      throw fromFsError(error, virtualPath, "list", detail);
    }
  }

  /** Step 4 for an installed path: its real location, which must stay in an installed root and off protected names. */
  private async onDisk(located: Extract<Location, { kind: "installed" }>, operation: "read" | "list"): Promise<{ stats: Stats; realPath: string }> {
    const { hostPath, virtualPath, roots, detail } = located;
    try {
      const location = await resolveRealLocation(hostPath);
      const realPath = location.realPath;
      const real = matchRoot(roots.installed, realPath, "real");
      detail["realPath"] = realPath;
      if (!location.exists && !location.danglingSymlink && real) {
        throw sandboxError("FILE_NOT_FOUND", `${operation === "list" ? "Folder" : "File"} not found: ${virtualPath}`);
      }
      if (!location.exists || !real) throw accessDenied("SYMLINK_ESCAPE", detail);
      if (findProtectedSegment(real.relative) !== undefined) throw accessDenied("PROTECTED_PATH", detail);
      return { stats: await lstat(realPath), realPath };
    } catch (error) {
      if (AppError.is(error)) throw error;
      throw fromFsError(error, virtualPath, operation, detail);
    }
  }
}

/** A file over READ_MAX_BYTES, for a read and for a change alike. */
function fileTooLarge(virtualPath: string, size: number, limit: number) {
  return sandboxError("FILE_TOO_LARGE", `File too large: ${virtualPath} is ${size} bytes; the limit is ${limit}`);
}
