import type {
  AgentDefinition,
  AgentSummary,
  Attachment,
  BranchFileListing,
  BranchPoint,
  FileListing,
  FileRevision,
  MemberRole,
  MemberSettings,
  ProjectMember,
  ProjectOverview,
  ProjectSettings,
  ProjectUsage,
  UserUsage,
  ProjectView,
  RunEvent,
  SessionSummary,
  SessionView,
} from "@agent-orchestrator/shared/wire";
import { ApiError } from "./api-error.js";
import { readSse } from "./sse-reader.js";
import type { PageSignIn } from "../sign-in/page-sign-in.js";
import type { TokenStore } from "../sign-in/token-store.js";
import { xhrSend, type UploadProgress } from "./xhr-send.js";

/** Asks the user for a token after a 401; resolves undefined when they decline. */
export type AskForToken = (reason: string) => Promise<string | undefined>;

/** A file of a session as fetched for the viewer. */
export interface SessionFile {
  text: string;
  contentType: string;
  /** the gateway sent only the start of a file too large to send whole */
  truncated: boolean;
}

/** A file as the files view lists it: a stored file's latest revision, or a file of a branch of the project's repository. */
export type ListedFile = FileListing | BranchFileListing;

/** A project's files as listed: `shown`, the branch and commit of its repository they are, when it has one. */
export interface ProjectFileList {
  files: ListedFile[];
  /** files were left out (a code snapshot's, or a large repository's) */
  truncated: boolean;
  shown?: BranchPoint;
}

/** Where a file is read: revision `revision` of a stored file, or the file on branch `branch` of the repository. */
export interface FileAt {
  revision?: number | undefined;
  branch?: string | undefined;
}

/** One revision of a project's text file, or a repository's file on a branch, as read for the viewer. */
export interface ProjectFileText {
  file: FileRevision | BranchFileListing;
  content: string;
  /** the gateway sent only the start of a file too large to send whole */
  truncated: boolean;
}

/** A settings document as the API answers it: what is stored, and the values unset answers take. */
export interface SettingsDocument<T> {
  settings: T;
  defaults: Record<string, string>;
}

/** One uploaded file as stored, and its Markdown form when it was a document. */
export interface UploadedFile {
  file: FileRevision;
  markdown?: FileRevision;
}

const pathOf = (id: string): string => id.split("/").map(encodeURIComponent).join("/");
const projectPath = (projectId: string): string => `/api/projects/${encodeURIComponent(projectId)}`;
const projectFilePath = (projectId: string, path: string): string => `${projectPath(projectId)}/files/${pathOf(path)}`;
const branchQuery = (branch: string | undefined, lead: "?" | "&"): string => (branch === undefined ? "" : `${lead}branch=${encodeURIComponent(branch)}`);

const jsonBody = (method: string, body: object): RequestInit => ({ method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

type Transport = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The gateway's HTTP API as the page uses it. Every failure becomes an ApiError. A 401 asks the user for
 * a token, stores it and retries, so a gateway with AUTH_TOKENS works without a separate sign-in page; on
 * a gateway with OpenID Connect it shows the sign-in instead, and every state-changing request carries the
 * sign-in's CSRF token (page-sign-in.ts).
 */
export class ApiClient {
  /** one prompt at a time: requests refused together wait for the same answer */
  private pendingToken: Promise<string | undefined> | undefined;

  constructor(
    private readonly tokens: TokenStore,
    private readonly askForToken: AskForToken,
    private readonly signIn?: PageSignIn,
  ) {}

  async listAgents(): Promise<AgentSummary[]> {
    return (await this.json<{ agents: AgentSummary[] }>("/api/agents")).agents;
  }

  async getAgent(agentId: string): Promise<AgentDefinition> {
    return (await this.json<{ agent: AgentDefinition }>(`/api/agents/${pathOf(agentId)}`)).agent;
  }

  /** The chats the caller may see, newest first; one project's with `projectId` (`default`: the personal one). */
  async listSessions(projectId?: string): Promise<SessionSummary[]> {
    const query = projectId === undefined ? "" : `?project_id=${encodeURIComponent(projectId)}`;
    return (await this.json<{ sessions: SessionSummary[] }>(`/api/sessions${query}`)).sessions;
  }

  /** Gives a chat a title of the user's own (the chat's owner or its project's owner). */
  async renameSession(sessionId: string, title: string): Promise<SessionSummary> {
    return (await this.json<{ session: SessionSummary }>(`/api/sessions/${encodeURIComponent(sessionId)}`, jsonBody("PATCH", { title }))).session;
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.json(`/api/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE" });
  }

  async getSession(sessionId: string): Promise<SessionView> {
    return (await this.json<{ session: SessionView }>(`/api/sessions/${encodeURIComponent(sessionId)}`)).session;
  }

  async cancel(sessionId: string): Promise<boolean> {
    return (await this.json<{ cancelled: boolean }>(`/api/sessions/${encodeURIComponent(sessionId)}/cancel`, { method: "POST" })).cancelled;
  }

  async listFiles(sessionId: string): Promise<FileListing[]> {
    return (await this.json<{ files: FileListing[] }>(`/api/sessions/${encodeURIComponent(sessionId)}/files`)).files;
  }

  /** `relativePath` is relative to the session folder (`brief.md`, `notes/a.md`). */
  async readFile(sessionId: string, relativePath: string): Promise<SessionFile> {
    const response = await this.send(`/api/sessions/${encodeURIComponent(sessionId)}/files/${pathOf(relativePath)}`);
    return {
      text: await response.text(),
      contentType: response.headers.get("content-type") ?? "text/plain",
      truncated: response.headers.get("x-content-truncated") === "true",
    };
  }

  async listProjects(): Promise<ProjectView[]> {
    return (await this.json<{ projects: ProjectView[] }>("/api/projects")).projects;
  }

  async createProject(name: string): Promise<ProjectView> {
    return (await this.json<{ project: ProjectView }>("/api/projects", jsonBody("POST", { name }))).project;
  }

  async renameProject(projectId: string, name: string): Promise<ProjectView> {
    return (await this.json<{ project: ProjectView }>(projectPath(projectId), jsonBody("PATCH", { name }))).project;
  }

  /** Deletes the project with its chats and files (owner; PROJECT_BUSY while a turn runs). */
  async deleteProject(projectId: string): Promise<void> {
    await this.json(projectPath(projectId), { method: "DELETE" });
  }

  async listMembers(projectId: string): Promise<ProjectMember[]> {
    return (await this.json<{ members: ProjectMember[] }>(`${projectPath(projectId)}/members`)).members;
  }

  /** Adds `user` with `role`, or changes their role (owner); answers the members as they are now. */
  async putMember(projectId: string, user: string, role: MemberRole): Promise<ProjectMember[]> {
    return (await this.json<{ members: ProjectMember[] }>(`${projectPath(projectId)}/members/${encodeURIComponent(user)}`, jsonBody("PUT", { role }))).members;
  }

  async removeMember(projectId: string, user: string): Promise<ProjectMember[]> {
    return (await this.json<{ members: ProjectMember[] }>(`${projectPath(projectId)}/members/${encodeURIComponent(user)}`, { method: "DELETE" })).members;
  }

  /** What the caller spent across every project, today and this month, and their daily budget. */
  /** BMAD's settings of a project (docs/settings.md): any member reads them. */
  async projectSettings(projectId: string): Promise<SettingsDocument<ProjectSettings>> {
    return this.json<SettingsDocument<ProjectSettings>>(`${projectPath(projectId)}/settings`);
  }

  /** Replaces the top-level keys `settings` names; the owner only. */
  async putProjectSettings(projectId: string, settings: ProjectSettings): Promise<SettingsDocument<ProjectSettings>> {
    return this.json<SettingsDocument<ProjectSettings>>(`${projectPath(projectId)}/settings`, jsonBody("PUT", settings));
  }

  /** The caller's own BMAD settings. */
  async mySettings(): Promise<SettingsDocument<MemberSettings>> {
    return this.json<SettingsDocument<MemberSettings>>("/api/me/settings");
  }

  async putMySettings(settings: MemberSettings): Promise<SettingsDocument<MemberSettings>> {
    return this.json<SettingsDocument<MemberSettings>>("/api/me/settings", jsonBody("PUT", settings));
  }

  async ownUsage(): Promise<UserUsage> {
    return (await this.json<{ usage: UserUsage }>("/api/usage")).usage;
  }

  /** What the project spent, this month and by month, and its monthly budget (docs/models.md "Cost totals"). */
  async projectUsage(projectId: string): Promise<ProjectUsage> {
    return (await this.json<{ usage: ProjectUsage }>(`${projectPath(projectId)}/usage`)).usage;
  }

  /** The method at a glance: the phases with the documents the project has, and the next workflow. */
  async projectOverview(projectId: string): Promise<ProjectOverview> {
    return (await this.json<{ overview: ProjectOverview }>(`${projectPath(projectId)}/overview`)).overview;
  }

  /**
   * The project's own files and its code snapshot's (`read_only`); `truncated` when snapshot files were left out.
   * In a project with a git repository, the files of `branch` (the default branch when undefined), with `shown`.
   */
  async listProjectFiles(projectId: string, branch?: string): Promise<ProjectFileList> {
    const body = await this.json<{ files: ListedFile[]; truncated?: boolean } & Partial<BranchPoint>>(`${projectPath(projectId)}/files?source=1${branchQuery(branch, "&")}`);
    const shown = body.branch !== undefined && body.commit !== undefined ? { branch: body.branch, commit: body.commit, working_tree: body.working_tree === true } : undefined;
    return { files: body.files, truncated: body.truncated === true, ...(shown ? { shown } : {}) };
  }

  /** The latest revision of a text file, or the one `at` names; a binary file is refused with BINARY_FILE. */
  async readProjectFile(projectId: string, path: string, at: FileAt = {}): Promise<ProjectFileText> {
    const query = at.revision === undefined ? branchQuery(at.branch, "?") : `?revision=${at.revision}`;
    const { file, content, truncated } = await this.json<ProjectFileText>(`${projectFilePath(projectId, path)}${query}`);
    return { file, content, truncated };
  }

  /** Every kept revision of a file, newest first. */
  async listRevisions(projectId: string, path: string): Promise<FileRevision[]> {
    return (await this.json<{ revisions: FileRevision[] }>(`${projectFilePath(projectId, path)}?revisions`)).revisions;
  }

  /** Makes revision `revision` the latest again, as a new revision. */
  async restoreRevision(projectId: string, path: string, revision: number): Promise<FileRevision> {
    return (await this.json<{ file: FileRevision }>(`${projectFilePath(projectId, path)}?restore=${revision}`, { method: "POST" })).file;
  }

  /**
   * The bytes of any file of the project. Fetched, not linked: a link cannot carry the bearer token, so the
   * page makes the download from the fetched bytes (held in memory until saved).
   */
  async downloadProjectFile(projectId: string, path: string, branch?: string): Promise<Blob> {
    return (await this.send(`${projectFilePath(projectId, path)}?download${branchQuery(branch, "&")}`)).blob();
  }

  /** The project's own files as a zip, as `GET /api/projects/:id/archive` lays them out. */
  async downloadArchive(projectId: string): Promise<Blob> {
    return (await this.send(`${projectPath(projectId)}/archive`)).blob();
  }

  /** Uploads one file into `folder` ("" for the project root) as a multipart request, reporting the bytes sent. */
  async uploadProjectFile(projectId: string, folder: string, file: File, onProgress: UploadProgress, signal?: AbortSignal): Promise<UploadedFile> {
    return this.uploadInto(`${projectPath(projectId)}/files`, folder, file, onProgress, signal);
  }

  /** A file into a chat's own scratch space (`{session-folder}/<folder>/…`), with progress, as for a project. */
  async uploadSessionFile(sessionId: string, folder: string, file: File, onProgress: UploadProgress, signal?: AbortSignal): Promise<UploadedFile> {
    return this.uploadInto(`/api/sessions/${encodeURIComponent(sessionId)}/files`, folder, file, onProgress, signal);
  }

  private async uploadInto(filesPath: string, folder: string, file: File, onProgress: UploadProgress, signal?: AbortSignal): Promise<UploadedFile> {
    const form = new FormData();
    form.append("file", file, file.name);
    const query = folder === "" ? "" : `?folder=${encodeURIComponent(folder)}`;
    const transport: Transport = (url, init) => xhrSend(url, init, onProgress);
    const body = await this.json<{ files: UploadedFile[] }>(`${filesPath}${query}`, { method: "POST", body: form, ...(signal ? { signal } : {}) }, transport);
    const [stored] = body.files;
    if (!stored) throw new ApiError("BAD_RESPONSE", "The upload's answer named no file");
    return stored;
  }

  /** One turn, streamed. A turn refused before it starts throws here, before any event. */
  chat(body: { agent_id: string; message: string; session_id?: string; project_id?: string; detach?: boolean; attachments?: Attachment[] }, signal: AbortSignal): Promise<AsyncGenerator<RunEvent>> {
    return this.events("/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
  }

  /** The session's running turn from its start, to show a turn that was under way when the page loaded. */
  watch(sessionId: string, signal: AbortSignal): Promise<AsyncGenerator<RunEvent>> {
    return this.events(`/api/sessions/${encodeURIComponent(sessionId)}/events`, { signal });
  }

  private async events(path: string, init: RequestInit): Promise<AsyncGenerator<RunEvent>> {
    const headers = { ...(init.headers as Record<string, string>), accept: "text/event-stream" };
    const response = await this.send(path, { ...init, headers });
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream") || !response.body) {
      throw new ApiError("BAD_RESPONSE", "Expected an event stream", response.status);
    }
    return runEvents(response.body);
  }

  /** A call whose answer is `{success: true, …}`; anything else is an ApiError. */
  async json<T>(path: string, init: RequestInit = {}, transport: Transport = fetch): Promise<T> {
    const response = await this.send(path, init, transport);
    const body = (await response.json().catch(() => undefined)) as (T & { success?: boolean }) | undefined;
    if (body?.success !== true) throw new ApiError("BAD_RESPONSE", `Unexpected answer from ${path}`, response.status);
    return body;
  }

  /** fetch with the token; non-2xx answers become ApiErrors carrying the gateway's code and message. */
  async send(path: string, init: RequestInit = {}, transport: Transport = fetch): Promise<Response> {
    for (;;) {
      const token = this.tokens.get();
      const headers = new Headers(init.headers);
      if (token) headers.set("authorization", `Bearer ${token}`);
      else for (const [name, value] of Object.entries(this.signIn?.headersFor(init.method) ?? {})) headers.set(name, value);
      let response: Response;
      try {
        response = await transport(path, { ...init, headers });
      } catch (error) {
        if (init.signal?.aborted) throw new ApiError("CANCELLED", "Stopped");
        throw new ApiError("NETWORK_ERROR", error instanceof Error ? error.message : "The request failed");
      }
      if (response.ok) return response;
      const failure = await errorOf(response);
      if (failure.code !== "UNAUTHORIZED") throw failure;
      if (token) this.tokens.clear();
      if (this.signIn?.oidc) {
        this.signIn.requireSignIn();
        throw failure;
      }
      const entered = await this.promptForToken(token ? "The saved token was not accepted." : "This server needs an access token.");
      if (!entered) throw failure;
      this.tokens.set(entered);
    }
  }

  private promptForToken(reason: string): Promise<string | undefined> {
    this.pendingToken ??= this.askForToken(reason).finally(() => {
      this.pendingToken = undefined;
    });
    return this.pendingToken;
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => undefined)) as { error?: { code?: unknown; message?: unknown } } | undefined;
  const code = typeof body?.error?.code === "string" ? body.error.code : `HTTP_${response.status}`;
  const message = typeof body?.error?.message === "string" ? body.error.message : response.statusText || "The request failed";
  return new ApiError(code, message, response.status);
}

async function* runEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RunEvent> {
  for await (const message of readSse(body)) {
    let event: unknown;
    try {
      event = JSON.parse(message.data);
    } catch {
      throw new ApiError("BAD_RESPONSE", "The event stream held an unreadable event");
    }
    if (typeof event !== "object" || event === null || (event as { type?: unknown }).type !== message.event) continue;
    yield event as RunEvent;
  }
}
