import {
  BranchArchiveRequest,
  BranchFileRequest,
  BranchFilesRequest,
  ChatFilesStatRequest,
  ChatTreeRequest,
  FilesDeleteRequest,
  FilesListRequest,
  FilesReadRequest,
  FilesRestoreRequest,
  FilesRevisionsRequest,
  FilesStatRequest,
  FilesUploadRequest,
  FilesWriteRequest,
  InstalledFileReadRequest,
  InstalledFilesListRequest,
  jetStreamNames,
  subjects,
  type FileAuthor,
  type FileRevision,
  type FileSpaceRef,
} from "@agent-orchestrator/shared/wire";
import type { GatewayFixture } from "./gateway-fixture.js";

type Stored = FileRevision & { content: string };

const missing = () => ({ success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } });

/**
 * The tool-runner's `project.files.*` as the shared schemas define them, in memory: each space's files
 * with every revision (a deletion and a restore are revisions too). Every request it receives is kept.
 */
export class FakeFileStore {
  private readonly spaces = new Map<string, Map<string, Stored[]>>();
  readonly received: { operation: string; request: unknown }[] = [];
  /** the bytes of each upload as stored, by `<kind>:<id>:<path>` */
  readonly uploaded = new Map<string, Uint8Array>();
  /** the installed BMAD files (`project.files.installed_*`), by path from BMAD_ROOT */
  readonly installed = new Map<string, string>();
  /** projects with a git repository: the files of every chat's working tree, by path (`project.repository.stat`) */
  readonly repositories = new Map<string, Map<string, string>>();

  constructor(private readonly fixture: GatewayFixture) {}

  /** Stores a new revision of `path` in `space`, as a write from anywhere would. */
  put(space: FileSpaceRef, path: string, content: string | null, author: FileAuthor): Stored {
    const files = this.space(space);
    const revisions = files.get(path) ?? [];
    const stored: Stored = {
      path,
      revision: revisions.length + 1,
      size: content === null ? 0 : Buffer.byteLength(content),
      sha256: content === null ? "" : `sha-${content.length}`,
      author,
      updated_at: new Date().toISOString(),
      content: content ?? "",
      ...(content === null ? { deleted: true } : {}),
    };
    files.set(path, [...revisions, stored]);
    return stored;
  }

  /** Subscribes every subject the gateway may use; call it in a `beforeAll` after the fixture's. */
  answer(): void {
    const on = this.on.bind(this);
    on("list", FilesListRequest, ({ space, prefix }) => {
      const latest = [...this.space(space).values()].map((revisions) => revisions.at(-1) as Stored);
      const files = latest.filter((file) => !file.deleted && file.path.startsWith(prefix ?? "")).map((file) => ({ ...fileOf(file), read_only: false }));
      return { success: true, files, unservable_names: 0, bytes: files.reduce((sum, file) => sum + file.size, 0) };
    });
    on("read", FilesReadRequest, ({ space, path, revision }) => {
      const revisions = this.space(space).get(path) ?? [];
      const found = revision === undefined ? revisions.at(-1) : revisions[revision - 1];
      return found && !found.deleted ? { success: true, file: fileOf(found), content: found.content, truncated: false } : missing();
    });
    on("revisions", FilesRevisionsRequest, ({ space, path }) => {
      const revisions = this.space(space).get(path);
      return revisions ? { success: true, revisions: revisions.map(fileOf).reverse() } : missing();
    });
    on("write", FilesWriteRequest, ({ space, path, content, author }) => ({ success: true, file: fileOf(this.put(space, path, content, author)) }));
    on("delete", FilesDeleteRequest, ({ space, path, author }) =>
      this.space(space).has(path) ? { success: true, file: fileOf(this.put(space, path, null, author)) } : missing(),
    );
    on("stat", FilesStatRequest, ({ space, paths, for_write }) => {
      if (for_write === true && paths.some((path) => path.split("/").includes(".env"))) {
        return { success: false, error: { code: "INVALID_PATH", message: "Not a name a project file may have" } };
      }
      const files = paths.map((path) => {
        const latest = this.space(space).get(path)?.at(-1);
        return latest && !latest.deleted ? { ...fileOf(latest), read_only: false } : null;
      });
      return { success: true, files };
    });
    // an upload: the staged bytes, read from the uploads store as the tool-runner takes them, then removed
    on("upload", FilesUploadRequest, async ({ space, path, staged, author }) => {
      const uploads = await this.fixture.connection().jetstream().views.os(jetStreamNames(this.fixture.prefix).fileUploadsStore);
      const bytes = await uploads.getBlob(staged);
      await uploads.delete(staged);
      if (bytes === null) return { success: false, error: { code: "NOT_FOUND", message: "The upload is no longer there" } };
      this.uploaded.set(`${space.kind}:${space.id}:${path}`, bytes);
      return { success: true, file: fileOf(this.put(space, path, new TextDecoder().decode(bytes), author)) };
    });
    on("installed_list", InstalledFilesListRequest, ({ after, limit }) => {
      const paths = [...this.installed.keys()].filter((path) => path > (after ?? "")).sort();
      const files = paths.slice(0, limit).map((path) => ({ path, size: Buffer.byteLength(this.installed.get(path) ?? ""), updated_at: "2026-01-01T00:00:00.000Z" }));
      return { success: true, files, more: paths.length > limit };
    });
    on("installed_read", InstalledFileReadRequest, ({ path }) => {
      if (path.split("/").some((name) => name.startsWith(".env"))) return { success: false, error: { code: "PROTECTED_PATH", message: "Access denied" } };
      const content = this.installed.get(path);
      return content === undefined ? missing() : { success: true, path, size: Buffer.byteLength(content), content, truncated: false };
    });
    // the fake tool-runner's repositories show no branch: the files API and the archive show the stored files
    this.fixture.respond(subjects.repository("files"), BranchFilesRequest, () => ({ success: true, files: null }));
    this.fixture.respond(subjects.repository("read"), BranchFileRequest, () => ({ success: true, file: null }));
    this.fixture.respond(subjects.repository("archive"), BranchArchiveRequest, () => ({ success: true, archive: null }));
    this.fixture.respond(subjects.repository("changes"), ChatTreeRequest, () => ({ success: true, changes: null }));
    // a chat's attachments, looked up in its working tree where the project has a repository
    this.fixture.respond(subjects.repository("stat"), ChatFilesStatRequest, (request) => {
      this.received.push({ operation: "repository_stat", request });
      const files = this.repositories.get(request.project_id);
      if (!files) return { success: true, files: null };
      const blob = "0".repeat(40);
      return { success: true, files: request.paths.map((path) => (files.has(path) ? { path, size: Buffer.byteLength(files.get(path) ?? ""), blob, executable: false, read_only: true } : null)) };
    });
    on("restore", FilesRestoreRequest, ({ space, path, revision, author }) => {
      const old = this.space(space).get(path)?.[revision - 1];
      return old && !old.deleted ? { success: true, file: fileOf(this.put(space, path, old.content, author)) } : missing();
    });
  }

  /** The requests the gateway sent for `operation` (`list`, `read`, …). */
  requests(operation: string): unknown[] {
    return this.received.filter((entry) => entry.operation === operation).map((entry) => entry.request);
  }

  private on<S extends Parameters<GatewayFixture["respond"]>[1]>(operation: string, schema: S, reply: (request: ReturnType<S["parse"]>) => unknown): void {
    this.fixture.respond(subjects.files(operation), schema, (request) => {
      this.received.push({ operation, request });
      return reply(request as ReturnType<S["parse"]>);
    });
  }

  private space(space: FileSpaceRef): Map<string, Stored[]> {
    const key = `${space.kind}:${space.id}`;
    const files = this.spaces.get(key) ?? new Map<string, Stored[]>();
    this.spaces.set(key, files);
    return files;
  }
}

const fileOf = ({ content: _content, ...file }: Stored): FileRevision => file;
