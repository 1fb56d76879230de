/**
 * The eval's side of the public API: what a user's client does (docs/api.md), nothing the services expose
 * only to each other. A turn is read as SSE from `POST /api/chat`, every event kept for grading.
 */
import { request } from "node:http";
import type { RunEvent } from "@agent-orchestrator/shared/wire";

export interface MenuItem {
  trigger: string;
  description: string;
  skill?: string;
  workflow?: string;
  exec?: string;
  prompt?: string;
}

export interface AgentDetail {
  id: string;
  name: string;
  title: string;
  format: string;
  release?: string;
  persona?: { role?: string; identity?: string; communication_style?: string; principles?: string };
  menu: MenuItem[];
}

export interface Greeting {
  text: string;
  menu: Array<{ number: number; trigger: string; description: string }>;
  user_name?: string;
  language: string;
}

/** One turn as the client saw it: every event, in order, or why there were none. */
export interface TurnRecord {
  sessionId: string | undefined;
  events: RunEvent[];
  /** the HTTP failure of a turn refused before it started */
  refused?: { status: number; body: string };
}

export interface ProjectFile {
  path: string;
  revision: number;
}

export class EvalClient {
  constructor(readonly url: string) {}

  private async json<T>(path: string, init?: RequestInit): Promise<T> {
    const response = await fetch(`${this.url}${path}`, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }

  private post<T>(path: string, body: unknown): Promise<T> {
    return this.json<T>(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  }

  async agentIds(): Promise<string[]> {
    return (await this.json<{ agents: Array<{ id: string }> }>("/api/agents")).agents.map((agent) => agent.id);
  }

  async agent(id: string): Promise<AgentDetail> {
    return (await this.json<{ agent: AgentDetail }>(`/api/agents/${id}`)).agent;
  }

  async greeting(agentId: string, projectId: string): Promise<Greeting> {
    return (await this.json<{ greeting: Greeting }>(`/api/agents/${agentId}/greeting?project_id=${encodeURIComponent(projectId)}`)).greeting;
  }

  async createProject(name: string): Promise<string> {
    return (await this.post<{ project: { id: string } }>("/api/projects", { name })).project.id;
  }

  /** A chat that opens with the system's greeting (no model call), as the web page starts one. */
  async startSession(agentId: string, projectId: string): Promise<string> {
    return (await this.post<{ session_id: string }>("/api/sessions", { agent_id: agentId, project_id: projectId })).session_id;
  }

  async files(projectId: string): Promise<ProjectFile[]> {
    return (await this.json<{ files: ProjectFile[] }>(`/api/projects/${encodeURIComponent(projectId)}/files`)).files;
  }

  /** The latest content of a project file, undefined when it does not exist. */
  async fileContent(projectId: string, path: string): Promise<string | undefined> {
    const response = await fetch(`${this.url}/api/projects/${encodeURIComponent(projectId)}/files/${path.split("/").map(encodeURIComponent).join("/")}`);
    if (response.status === 404) return undefined;
    const text = await response.text();
    if (!response.ok) throw new Error(`GET the file ${path}: ${response.status} ${text.slice(0, 500)}`);
    return String((JSON.parse(text) as { content?: unknown }).content ?? "");
  }

  /** Compacts a chat now (one model call writes its hand-off, so it is read as a turn is, however long it takes). */
  async compact(sessionId: string): Promise<{ before_tokens: number; after_tokens: number; stage: string }> {
    const response = await postForStream(`${this.url}/api/sessions/${encodeURIComponent(sessionId)}/compact`, {});
    if (response.status !== 200) throw new Error(`POST /api/sessions/${sessionId}/compact: ${response.status} ${response.text.slice(0, 500)}`);
    return (JSON.parse(response.text) as { compaction: { before_tokens: number; after_tokens: number; stage: string } }).compaction;
  }

  /** One turn, streamed: every event until `done` or `error`. */
  async chat(body: { agent_id: string; message: string; project_id: string; session_id?: string }): Promise<TurnRecord> {
    const response = await postForStream(`${this.url}/api/chat`, body);
    if (response.status !== 200 || !response.contentType.startsWith("text/event-stream")) {
      return { sessionId: body.session_id, events: [], refused: { status: response.status, body: response.text.slice(0, 1000) } };
    }
    const events = parseSse(response.text);
    const started = events.find((event) => event.type === "session");
    return { sessionId: started?.session_id ?? body.session_id, events };
  }
}

/**
 * A POST whose answer is read to its end however long the turn is silent: a model may think for minutes before
 * its first token, and fetch (undici) gives up on a body that sends nothing for 300 s; the gateway's own plain
 * HTTP server is the only peer.
 */
function postForStream(url: string, body: unknown): Promise<{ status: number; contentType: string; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const outgoing = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream", "content-length": Buffer.byteLength(payload) } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", reject);
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, contentType: String(incoming.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString("utf8") }));
    });
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

/** The `data:` payloads of an SSE body, as run events. */
function parseSse(text: string): RunEvent[] {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n"))
    .filter((data) => data !== "")
    .map((data) => JSON.parse(data) as RunEvent);
}
