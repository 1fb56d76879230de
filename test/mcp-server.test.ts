/**
 * The MCP server at /mcp (docs/openai-api.md) through the official SDK client: bearer auth, DNS-rebinding
 * protection, the `bmad` tool (list/read/execute, docs/design.md "Activation documents") and `chat` answered by this server's loop.
 * Also the activation route with the user's request. Real processes, a private nats-server, the
 * scripted model.
 */
import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote, withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const token = "alice-token-1111";
let system: TestSystem;

function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  if (last?.role === "tool") return { text: "Saved your note." };
  const said = withoutSystemNote(String(last?.content ?? ""));
  if (said.startsWith("save")) return { toolCalls: [{ name: "save_output", arguments: { file_path: "{session-folder}/note.md", content: "# Note\n" } }] };
  return { text: `echo: ${said}` };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { AUTH_TOKENS: `alice:${token}`, HOST: "127.0.0.1" } });
}, 60_000);

afterAll(() => system?.stop());

async function connect(bearer: string | undefined): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${system.url}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A raw POST to /mcp with headers fetch would not let us set (Host). */
function rawPost(headers: Record<string, string>): Promise<number> {
  const url = new URL(`${system.url}/mcp`);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, ...headers } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
  });
}

const structured = (result: Awaited<ReturnType<Client["callTool"]>>) => result.structuredContent as Record<string, any>;
const text = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? "").join("\n");

describe("connecting", () => {
  it("connects with a token and is refused without one or with a wrong one", async () => {
    const client = await connect(token);
    await client.close();
    await expect(connect(undefined)).rejects.toThrow();
    await expect(connect("wrong-token-000")).rejects.toThrow();
    const response = await fetch(`${system.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(401);
  });

  it("refuses a foreign Host or Origin (DNS rebinding), and accepts its own", async () => {
    expect(await rawPost({})).toBe(200);
    expect(await rawPost({ host: "attacker.example" })).toBe(403);
    expect(await rawPost({ origin: "http://attacker.example" })).toBe(403);
  });
});

describe("tools", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(token);
  });
  afterAll(() => client?.close());

  it("lists bmad and chat", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["bmad", "chat"]);
  });

  it("lists the agents and their workflows with bmad list", async () => {
    const result = await client.callTool({ name: "bmad", arguments: { operation: "list" } });
    expect(result.isError).toBeFalsy();
    const coach = structured(result)["data"]["agents"].find((agent: { id: string }) => agent.id === "idea-coach");
    expect(coach).toMatchObject({ name: "Nova", module: "idea-studio" });
    expect(coach.workflows).toContainEqual(expect.objectContaining({ trigger: "*idea-brief", kind: "workflow" }));
    expect(text(result)).toContain("idea-coach");
  });

  it("reads one agent's definition with bmad read", async () => {
    const result = await client.callTool({ name: "bmad", arguments: { operation: "read", agent: "idea-coach" } });
    expect(structured(result)["data"]["agent"]).toMatchObject({ id: "idea-coach", menu: expect.arrayContaining([expect.objectContaining({ trigger: "*idea-brief" })]) });
  });

  it("activates an agent in one call with bmad execute: persona, menu and the user's request", async () => {
    const result = await client.callTool({ name: "bmad", arguments: { operation: "execute", agent: "idea-coach", user_context: "shape my bakery idea" } });
    const data = structured(result)["data"];
    expect(data).toMatchObject({ type: "agent", persona: { name: "Nova" }, userContext: "shape my bakery idea" });
    expect(data.menu).toContainEqual(expect.objectContaining({ trigger: "*idea-brief" }));
    expect(text(result)).toContain("Nova");
    expect(text(result)).toContain("*idea-brief");
    expect(text(result)).toContain("> shape my bakery idea");
  });

  it("activates a workflow with bmad execute", async () => {
    const result = await client.callTool({ name: "bmad", arguments: { operation: "execute", workflow: "idea-brief", user_context: "a brief for my bakery" } });
    expect(structured(result)["data"]).toMatchObject({ type: "workflow", name: "idea-brief", agent: { id: "idea-coach" }, userContext: "a brief for my bakery" });
    expect(text(result)).toContain("Workflow Activated");
    expect(text(result)).toContain("workflows/idea-brief/workflow.yaml");
  });

  it("answers an unknown agent as a tool error the model can read", async () => {
    const result = await client.callTool({ name: "bmad", arguments: { operation: "execute", agent: "no-such-agent" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^AGENT_NOT_FOUND: /);
  });

  it("runs a turn on the server with chat, and continues its session", async () => {
    const first = await client.callTool({ name: "chat", arguments: { agent_id: "idea-coach", message: "save a note" } });
    expect(first.isError).toBeFalsy();
    const result = structured(first);
    expect(result).toMatchObject({ success: true, response: "Saved your note.", files: [expect.objectContaining({ path: "{session-folder}/note.md" })] });
    expect(text(first)).toContain("Saved your note.");
    const second = await client.callTool({ name: "chat", arguments: { agent_id: "idea-coach", message: "and now?", session_id: result["session_id"] } });
    expect(structured(second)).toMatchObject({ session_id: result["session_id"], response: "echo: and now?" });
  });

  it("attaches files to a chat: an inline file is stored in inputs/ and the model is told its path, not its content", async () => {
    const notes = Buffer.from("# Bakery notes\nSourdough sells out by nine.\n");
    const result = await client.callTool({ name: "chat", arguments: { agent_id: "idea-coach", message: "read my notes", attachments: [{ name: "bakery.md", content_base64: notes.toString("base64") }] } });
    expect(result.isError).toBeFalsy();
    const told = String(system.model.requests.map((request) => request.body).findLast((body) => body.messages.at(-1)?.role === "user")?.messages.at(-1)?.content);
    // the chat's first message: the system's note of the day ends it
    expect(told).toMatch(endsWithDateNote(/read my notes\n\nAttached files .*\n- \{project-root\}\/inputs\/bakery\.md/s));
    expect(told).not.toContain("Sourdough");
    const stored = await fetch(`${system.url}/api/projects/${structured(result)["project_id"] as string}/files/inputs/bakery.md?raw`, { headers: { authorization: `Bearer ${token}` } });
    expect(await stored.text()).toBe(notes.toString());
    const missing = await client.callTool({ name: "chat", arguments: { agent_id: "idea-coach", message: "read it", attachments: [{ path: "inputs/nowhere.md" }] } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("FILE_NOT_FOUND");
  });
});

describe("GET/POST /api/agents/:id/activation with the user's request", () => {
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${system.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });

  it("takes user_context as a query parameter", async () => {
    const body = (await (await api("/api/agents/idea-coach/activation?user_context=help%20me%20start")).json()) as Record<string, any>;
    expect(body["data"]["userContext"]).toBe("help me start");
    expect(body["text"]).toContain("> help me start");
  });

  it("takes user_context and variables as a JSON body", async () => {
    const response = await api("/api/agents/idea-coach/activation", { method: "POST", body: JSON.stringify({ user_context: "from a body", variables: { user_name: "Ada" } }) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Record<string, any>)["data"]["userContext"]).toBe("from a body");
  });

  it("refuses an over-long or unknown field with 400", async () => {
    // a request this long only fits in a body: Node refuses a URL past 16 KiB (431) before any route
    expect((await api("/api/agents/idea-coach/activation", { method: "POST", body: JSON.stringify({ user_context: "x".repeat(20_001) }) })).status).toBe(400);
    expect((await api("/api/agents/idea-coach/activation?context=x")).status).toBe(400);
    expect((await api("/api/agents/idea-coach/activation", { method: "POST", body: JSON.stringify({ agent_id: "other" }) })).status).toBe(400);
  });
});
