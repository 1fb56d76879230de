import type { Greeting, SessionMatch } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { attachmentName } from "./attachment-name.js";
import { pageApi } from "../api/page-api.js";

export type { Greeting, SessionMatch };

/** A chat's Markdown export as fetched: the bytes, and the file name the gateway suggests. */
export interface ChatExport {
  blob: Blob;
  fileName: string;
}

const sessionPath = (sessionId: string): string => `/api/sessions/${encodeURIComponent(sessionId)}`;
const agentPath = (agentId: string): string => `/api/agents/${agentId.split("/").map(encodeURIComponent).join("/")}`;

/**
 * The calls the chat management and the greeting make (`docs/api.md`, sessions and greetings), through the
 * page's one API client (page-api.ts), so a refused token is asked for as everywhere else.
 */
export class ChatApi {
  constructor(private readonly api: Pick<ApiClient, "json" | "send"> = pageApi) {}

  /** Starts a chat with `agentId` in `projectId` that opens with the agent's greeting (no model call). */
  async startChat(agentId: string, projectId: string): Promise<{ sessionId: string; projectId: string; greeting: Greeting }> {
    const body = await this.api.json<{ session_id: string; project_id: string; greeting: Greeting }>("/api/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: agentId, project_id: projectId }),
    });
    return { sessionId: body.session_id, projectId: body.project_id, greeting: body.greeting };
  }

  /** The greeting without starting a chat: what a viewer of the project, who may not chat, reads. */
  async previewGreeting(agentId: string, projectId: string): Promise<Greeting> {
    return (await this.api.json<{ greeting: Greeting }>(`${agentPath(agentId)}/greeting?project_id=${encodeURIComponent(projectId)}`)).greeting;
  }

  /** The project's chats whose title or visible messages hold `text`, newest first, each with its `match`. */
  async searchChats(projectId: string, text: string, signal?: AbortSignal): Promise<SessionMatch[]> {
    const query = `project_id=${encodeURIComponent(projectId)}&q=${encodeURIComponent(text)}`;
    return (await this.api.json<{ sessions: SessionMatch[] }>(`/api/sessions?${query}`, signal ? { signal } : {})).sessions;
  }

  /** The chat as Markdown. Fetched, not linked: a link cannot carry the bearer token. */
  async exportChat(sessionId: string): Promise<ChatExport> {
    const response = await this.api.send(`${sessionPath(sessionId)}/export`);
    return { blob: await response.blob(), fileName: attachmentName(response.headers.get("content-disposition")) ?? `chat-${sessionId}.md` };
  }
}

/** The page's one ChatApi. */
export const chatApi = new ChatApi();
