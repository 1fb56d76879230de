import {
  AppError,
  type FileSpaceRef,
  type FilesChangeReply,
  type FilesListReply,
  type FilesPurgeReply,
  type FilesReadReply,
  type FilesRevisionsReply,
  type FileAuthor,
} from "@agent-orchestrator/shared";
import { isServablePath } from "./sandbox/index.js";
import { decodeText } from "./sandbox/text-content.js";
import type { FileStore } from "./store/file-store.js";
import { liveFiles } from "./store/space-index.js";
import { checkedSpacePath, checkedWritablePath } from "./store/space-path.js";
import { fitContentsToBudget } from "./tools/reply-budget.js";

/**
 * The files of a project or of a chat's scratch space for the gateway and the orchestrator
 * (`project.files.*`): the same store and the same path checks as the tools. The caller has checked the
 * user's role in the project (docs/projects.md "What a project is"); the tool-runner only serves its peers.
 */
export class ProjectFiles {
  constructor(
    private readonly files: FileStore,
    private readonly replyBudget: () => number,
  ) {}

  /** The space's files (latest live revisions), under `prefix` when given, sorted by path. */
  async list(request: { space: FileSpaceRef; prefix?: string | undefined }): Promise<FilesListReply> {
    const prefix = request.prefix === undefined || request.prefix === "" ? "" : `${checkedSpacePath(request.prefix.replace(/\/+$/, ""))}/`;
    const all = liveFiles(await this.files.index(request.space)).filter((file) => file.path.startsWith(prefix));
    const servable = all.filter((file) => isServablePath(file.path));
    const files = servable
      .map(({ deleted: _deleted, ...file }) => ({ ...file, read_only: false }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    return { success: true, files, bytes, unservable_names: all.length - servable.length };
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
    return { success: true, file: await this.files.write(request.space, checkedWritablePath(request.space, request.path), request.content, request.author) };
  }

  async remove(request: { space: FileSpaceRef; path: string; author: FileAuthor }): Promise<FilesChangeReply> {
    return { success: true, file: await this.files.remove(request.space, checkedSpacePath(request.path), request.author) };
  }

  async restore(request: { space: FileSpaceRef; path: string; revision: number; author: FileAuthor }): Promise<FilesChangeReply> {
    return { success: true, file: await this.files.restore(request.space, checkedWritablePath(request.space, request.path), request.revision, request.author) };
  }

  async purge(request: { space: FileSpaceRef }): Promise<FilesPurgeReply> {
    return { success: true, files: await this.files.purge(request.space) };
  }
}
