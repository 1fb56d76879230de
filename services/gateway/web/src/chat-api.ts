import type { Greeting } from "../../../../shared/src/wire/greeting-messages.js";
import type { SessionMatch } from "../../../../shared/src/wire/session-management-messages.js";
import { ApiError } from "./api-error.js";
import { attachmentName } from "./attachment-name.js";
import { TokenStore } from "./token-store.js";
import type { SessionView } from "./wire-types.js";

export type { Greeting, SessionMatch };

/** A chat's Markdown export as fetched: the bytes, and the file name the gateway suggests. */
export interface ChatExport {
  blob: Blob;
  fileName: string;
}

const sessionPath = (sessionId: string): string => `/api/sessions/${encodeURIComponent(sessionId)}`;
const agentPath = (agentId: string): string => `/api/agents/${agentId.split("/").map(encodeURIComponent).join("/")}`;

/**
 * The calls the chat management and the greeting make (`docs/api.md`, sessions and greetings), with the
 * token the page already holds. A refused token is reported as UNAUTHORIZED: the page asked for one when it
 * loaded the agents, so this module does not prompt a second time.
 */
export class ChatApi {
  constructor(private readonly tokens: TokenStore = new TokenStore()) {}

  /** Starts a chat with `agentId` in `projectId` that opens with the agent's greeting (no model call). */
  async startChat(agentId: string, projectId: string): Promise<{ sessionId: string; projectId: string; greeting: Greeting }> {
    const body = await this.json<{ session_id: string; project_id: string; greeting: Greeting }>("/api/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: agentId, project_id: projectId }),
    });
    return { sessionId: body.session_id, projectId: body.project_id, greeting: body.greeting };
  }

  /** The greeting without starting a chat: what a viewer of the project, who may not chat, reads. */
  async previewGreeting(agentId: string, projectId: string): Promise<Greeting> {
    return (await this.json<{ greeting: Greeting }>(`${agentPath(agentId)}/greeting?project_id=${encodeURIComponent(projectId)}`)).greeting;
  }

  /** The project's chats whose title or visible messages hold `text`, newest first, each with its `match`. */
  async searchChats(projectId: string, text: string, signal?: AbortSignal): Promise<SessionMatch[]> {
    const query = `project_id=${encodeURIComponent(projectId)}&q=${encodeURIComponent(text)}`;
    return (await this.json<{ sessions: SessionMatch[] }>(`/api/sessions?${query}`, signal ? { signal } : {})).sessions;
  }

  async getChat(sessionId: string): Promise<SessionView> {
    return (await this.json<{ session: SessionView }>(sessionPath(sessionId))).session;
  }

  async renameChat(sessionId: string, title: string): Promise<void> {
    await this.json(sessionPath(sessionId), { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ title }) });
  }

  /** Deletes the chat; SESSION_BUSY (409) while it runs a turn. */
  async deleteChat(sessionId: string): Promise<void> {
    await this.json(sessionPath(sessionId), { method: "DELETE" });
  }

  /** The chat as Markdown. Fetched, not linked: a link cannot carry the bearer token. */
  async exportChat(sessionId: string): Promise<ChatExport> {
    const response = await this.send(`${sessionPath(sessionId)}/export`);
    return { blob: await response.blob(), fileName: attachmentName(response.headers.get("content-disposition")) ?? `chat-${sessionId}.md` };
  }

  private async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await this.send(path, init);
    const body = (await response.json().catch(() => undefined)) as (T & { success?: boolean }) | undefined;
    if (body?.success !== true) throw new ApiError("BAD_RESPONSE", `Unexpected answer from ${path}`, response.status);
    return body;
  }

  private async send(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const token = this.tokens.get();
    if (token) headers.set("authorization", `Bearer ${token}`);
    let response: Response;
    try {
      response = await fetch(path, { ...init, headers });
    } catch (error) {
      if (init.signal?.aborted) throw new ApiError("CANCELLED", "Stopped");
      throw new ApiError("NETWORK_ERROR", error instanceof Error ? error.message : "The request failed");
    }
    if (response.ok) return response;
    const body = (await response.json().catch(() => undefined)) as { error?: { code?: unknown; message?: unknown } } | undefined;
    const code = typeof body?.error?.code === "string" ? body.error.code : `HTTP_${response.status}`;
    const message = typeof body?.error?.message === "string" ? body.error.message : response.statusText || "The request failed";
    throw new ApiError(code, message, response.status);
  }
}

/** The page's one ChatApi. */
export const chatApi = new ChatApi();
