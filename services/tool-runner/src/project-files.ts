import { AppError } from "@agent-orchestrator/shared/runtime";
import {
  type FileSpaceRef,
  type FileListing,
  type FileRevision,
  type FilesChangeReply,
  type FilesStatReply,
  type FilesListReply,
  type FilesPurgeReply,
  type FilesReadReply,
  type FilesRevisionsReply,
  type FileAuthor,
} from "@agent-orchestrator/shared/wire";
import { isServablePath } from "./sandbox/index.js";
import { decodeText } from "./sandbox/text-content.js";
import type { FileStore } from "./store/file-store.js";
import { sourceWriteVerdict } from "./store/source-snapshots.js";
import { liveFiles } from "./store/space-index.js";
import { checkedSpacePath, checkedWritablePath } from "./store/space-path.js";
import { findProtectedSegment } from "./paths/protected-names.js";
import { fitContentsToBudget, jsonBytes } from "./reply-budget.js";

/**
 * The files of a project or of a chat's scratch space for the gateway and the orchestrator
 * (`project.files.*`): the same store and the same path checks as the tools. The caller has checked the
 * user's role in the project (docs/projects.md "What a project is"); the tool-runner only serves its peers.
 */
export class ProjectFiles {
  constructor(
    private readonly files: FileStore,
    private readonly replyBudget: () => number,
    /** BMAD's output places in the project (Sandbox.outputPlaces), where a code snapshot's folders stay writable */
    private readonly outputPlaces: () => Promise<string[]>,
    /** whether the project has a git repository: then its files change with git, never here */
    private readonly hasRepository: (project: string) => Promise<boolean> = async () => false,
  ) {}

  /**
   * The space's files (latest live revisions), under `prefix` when given, sorted by path; with `source`, a
   * project's code snapshot files too (read-only), as many as fit the reply (`truncated` when cut).
   */
  async list(request: { space: FileSpaceRef; prefix?: string | undefined; source?: boolean | undefined }): Promise<FilesListReply> {
    const prefix = request.prefix === undefined || request.prefix === "" ? "" : `${checkedSpacePath(request.prefix.replace(/\/+$/, ""))}/`;
    const all = liveFiles(await this.files.index(request.space)).filter((file) => file.path.startsWith(prefix));
    const servable = all.filter((file) => isServablePath(file.path));
    const files = servable.map((file) => listing(file, false));
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    const source = request.source === true && request.space.kind === "project" ? await this.files.sources.current(request.space.id) : undefined;
    const snapshot = [...(source?.files.values() ?? [])].filter((file) => file.path.startsWith(prefix) && isServablePath(file.path) && findProtectedSegment(file.path) === undefined);
    files.push(...snapshot.map((file) => listing(file, true)));
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const reply: FilesListReply = { success: true, files, bytes, unservable_names: all.length - servable.length };
    // the own files always fit (the index they come from is one message); snapshot files are cut to fit
    const budget = this.replyBudget();
    if (jsonBytes(reply) > budget) {
      const kept = files.filter((file) => !file.read_only);
      let room = budget - jsonBytes({ ...reply, files: kept, truncated: true });
      for (const file of files) {
        if (!file.read_only) continue;
        room -= jsonBytes(file) + 1;
        if (room < 0) break;
        kept.push(file);
      }
      kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return { ...reply, files: kept, truncated: true };
    }
    return reply;
  }

  /** Each of `paths` as listed (an own file, else a code snapshot file), or null where there is none. */
  async stat(request: { space: FileSpaceRef; paths: string[]; for_write?: boolean | undefined }): Promise<FilesStatReply> {
    if (request.for_write === true) for (const path of request.paths) await this.uploadablePath(request.space, path);
    const index = await this.files.index(request.space);
    const source = request.space.kind === "project" ? await this.files.sources.current(request.space.id) : undefined;
    const files = request.paths.map((path) => {
      checkedSpacePath(path);
      const own = index.files.get(path);
      if (own && own.deleted !== true) return listing(own, false);
      const snapshot = source?.files.get(path);
      return snapshot ? listing(snapshot, true) : null;
    });
    return { success: true, files };
  }

  /** One file's latest revision or revision `revision`, as text cut to fit a reply. */
  async read(request: { space: FileSpaceRef; path: string; revision?: number | undefined }): Promise<FilesReadReply> {
    const { file, content } = await this.files.read(request.space, checkedSpacePath(request.path), request.revision);
    const text = decodeText(content);
    if (text === undefined) throw new AppError("BINARY_FILE", `Binary file: ${file.path}; only text files can be shown`);
    const reply = { success: true as const, file, content: text, truncated: false };
    fitContentsToBudget(reply, [reply], this.replyBudget());
    return reply;
  }

  async revisions(request: { space: FileSpaceRef; path: string }): Promise<FilesRevisionsReply> {
    const revisions = await this.files.revisions(request.space, checkedSpacePath(request.path));
    if (revisions.length === 0) throw new AppError("FILE_NOT_FOUND", `File not found: ${request.path}`);
    return { success: true, revisions };
  }

  async write(request: { space: FileSpaceRef; path: string; content: string; author: FileAuthor }): Promise<FilesChangeReply> {
    return { success: true, file: await this.files.write(request.space, await this.writablePath(request.space, request.path), request.content, request.author) };
  }

  async remove(request: { space: FileSpaceRef; path: string; author: FileAuthor }): Promise<FilesChangeReply> {
    await this.refuseRepository(request.space);
    return { success: true, file: await this.files.remove(request.space, checkedSpacePath(request.path), request.author) };
  }

  async restore(request: { space: FileSpaceRef; path: string; revision: number; author: FileAuthor }): Promise<FilesChangeReply> {
    return { success: true, file: await this.files.restore(request.space, await this.writablePath(request.space, request.path), request.revision, request.author) };
  }

  /** `writablePath` for a client's upload: a protected name is a name no project file may have (INVALID_PATH). */
  private async uploadablePath(space: FileSpaceRef, input: string): Promise<string> {
    if (findProtectedSegment(input) !== undefined) {
      throw new AppError("INVALID_PATH", "Not a name a project file may have: secrets, keys, credentials and .git are never stored");
    }
    return this.writablePath(space, input);
  }

  /**
   * `input` checked as a path a member may write: as `checkedWritablePath`, and never a file of the project's
   * code snapshot or a new file in one of its folders outside BMAD's output places (docs/uploads.md), and never
   * in a project with a repository (REPOSITORY_FILES_READ_ONLY).
   */
  async writablePath(space: FileSpaceRef, input: string): Promise<string> {
    const path = checkedWritablePath(space, input);
    if (space.kind !== "project") return path;
    await this.refuseRepository(space);
    const why = await sourceWriteVerdict(await this.files.sources.current(space.id), path, this.outputPlaces);
    if (why !== undefined) throw new AppError("PROTECTED_PATH", `${path} is ${why}; upload a new code snapshot to change it`);
    return path;
  }

  /**
   * A project with a repository shows the repository's files (docs/repositories.md "The files API on a
   * repository"): a change of its stored files would land where nobody sees it, so it is refused.
   */
  async refuseRepository(space: FileSpaceRef): Promise<void> {
    if (space.kind === "project" && (await this.hasRepository(space.id))) {
      throw new AppError("REPOSITORY_FILES_READ_ONLY", "This project's files are its git repository's: change them with git (clone, commit, push to /git/<project>.git) or through a chat");
    }
  }

  async purge(request: { space: FileSpaceRef }): Promise<FilesPurgeReply> {
    return { success: true, files: await this.files.purge(request.space) };
  }
}

/** A revision as clients see it in a listing. */
function listing({ deleted: _deleted, ...file }: FileRevision, readOnly: boolean): FileListing {
  return { ...file, read_only: readOnly };
}
