/**
 * A tool call waiting for a decision, met by MCP's `chat` tool (docs/openai-api.md "Approvals through elicitation";
 * issue 39's MCP door), through the official SDK client on the four services as processes: a client that declares
 * elicitation is asked, approves one call (with a value changed) and rejects another, and the turn goes on to its
 * answer within the same tool call; a dismissed question leaves the call waiting; an answer POSTed by another user is
 * dropped; a client without elicitation gets the call refused, clearly.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveDraftResponder } from "@agent-orchestrator/testing/save-draft-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const tokens = { alice: "alice-token-1111", mallory: "mallory-token-44" } as const;

let system: TestSystem;
let project = "";

async function call(member: keyof typeof tokens, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[member]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A project file's latest content, or its status when there is none. */
const fileText = async (path: string) => {
  const response = await fetch(`${system.url}/api/projects/${project}/files/${path}`, { headers: { authorization: `Bearer ${tokens.alice}` } });
  return response.status === 200 ? ((await response.json()) as { content: string }).content : `(${response.status})`;
};

/** alice's MCP client; with `answer`, one that declares form elicitation and answers each question with it. */
async function connect(answer?: (request: ElicitRequest, extra: { requestId: string | number; signal: AbortSignal }) => Promise<ElicitResult>) {
  const client = new Client({ name: "approvals-test", version: "1.0.0" }, answer ? { capabilities: { elicitation: { form: {} } } } : {});
  const questions: ElicitRequest[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      questions.push(request);
      return answer(request, extra);
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${system.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.alice}` } } });
  await client.connect(transport);
  return { client, transport, questions };
}

const chat = (client: Client, message: string) => client.callTool({ name: "chat", arguments: { agent_id: "idea-coach", project_id: project, message } });
const structured = (result: Awaited<ReturnType<Client["callTool"]>>) => result.structuredContent as Record<string, any>;
const text = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");
/** The question's form field for an argument, as the server offered it. */
const field = (question: ElicitRequest, name: string) => (question.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema.properties[name];

beforeAll(async () => {
  system = await startTestSystem({ responder: saveDraftResponder, env: { AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",") } });
  project = (await call("alice", "POST", "/api/projects", { name: "Asked over MCP" })).body["project"].id;
  const settings = await call("alice", "PUT", `/api/projects/${project}/settings`, { approvals: { tools: { save_output: "ask" } } });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
}, 120_000);

afterAll(() => system?.stop());

describe("a client that declares elicitation", () => {
  it("is asked about the call, approves it with a changed value, and gets the turn's answer within the same tool call; the decision is audited", async () => {
    const { client, transport, questions } = await connect(async () => ({ action: "accept", content: { decision: "approve", arg_content: "alice's own words" } }));
    // the session id carries what the client declared (no session is kept)
    expect(transport.sessionId).toMatch(/^ao1\.elicit\./);
    const result = await chat(client, "save {project-root}/docs/approved.md");
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    expect(questions).toHaveLength(1);
    expect(questions[0]?.params.message).toContain("save_output");
    expect(questions[0]?.params.message).toContain("{project-root}/docs/approved.md");
    expect(field(questions[0]!, "arg_content")).toMatchObject({ type: "string", default: "the draft" });
    expect(structured(result)).toMatchObject({ success: true, files: [expect.objectContaining({ path: "{project-root}/docs/approved.md" })] });
    expect(structured(result)["response"]).toMatch(/^Saving the draft\.\n\nThe tool said: /);
    expect(await fileText("docs/approved.md")).toBe("alice's own words");
    const audit = await call("alice", "GET", `/api/projects/${project}/audit`);
    const record = (audit.body["records"] as Array<Record<string, any>>).find((entry) => entry["action"] === "approval_decided" && entry["target"] === structured(result)["session_id"]);
    expect(record).toMatchObject({ actor: "alice", outcome: "ok", call: { tool: "save_output", edited_arguments: { content: "alice's own words" } } });
  }, 60_000);

  it("rejects another call with a message the model reads; the file is not written", async () => {
    const { client } = await connect(async () => ({ action: "accept", content: { decision: "reject", message: "not in docs/, please" } }));
    const result = await chat(client, "save {project-root}/docs/rejected.md");
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    expect(structured(result)["response"]).toContain("alice rejected this call, so it was not run: not in docs/, please");
    expect(await fileText("docs/rejected.md")).toBe("(404)");
  }, 60_000);

  it("case 318: drops an answer another user POSTs to the question; only the asked user's counts", async () => {
    const { client } = await connect(async (_request, { requestId }) => {
      // mallory, signed in herself, answers alice's question first, approving it
      const forged = await fetch(`${system.url}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.mallory}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: requestId, result: { action: "accept", content: { decision: "approve" } } }),
      });
      expect(forged.status).toBe(202);
      return { action: "accept", content: { decision: "reject", message: "no" } };
    });
    const result = await chat(client, "save {project-root}/docs/forged.md");
    await client.close();
    expect(structured(result)["response"]).toContain("alice rejected this call");
    expect(await fileText("docs/forged.md")).toBe("(404)");
  }, 60_000);

  it("withdraws the question when the call is decided elsewhere meanwhile, and follows the resumed turn to its answer", async () => {
    let withdrawn = false;
    const { client } = await connect(async (_request, { signal }) => {
      // alice decides on another door (the web page's REST call) while her MCP client shows the question
      const listed = await call("alice", "GET", "/api/approvals");
      const waiting = (listed.body["approvals"] as Array<Record<string, any>>).find((item) => item["arguments"]?.file_path === "{project-root}/docs/elsewhere.md");
      expect((await call("alice", "POST", `/api/sessions/${waiting?.["session_id"]}/approvals/${waiting?.["approval_id"]}`, { decision: "approve" })).status).toBe(200);
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      withdrawn = true;
      return { action: "cancel" };
    });
    const result = await chat(client, "save {project-root}/docs/elsewhere.md");
    await client.close();
    expect(withdrawn).toBe(true);
    expect(structured(result)["response"]).toMatch(/^Saving the draft\.\n\nThe tool said: /);
    expect(await fileText("docs/elsewhere.md")).toBe("the draft");
  }, 60_000);

  it("case 319: leaves the call waiting, never run, when its client fails to ask; and says where it can still be decided", async () => {
    const { client } = await connect(async () => {
      throw new Error("no window to show a form in");
    });
    const result = await chat(client, "save {project-root}/docs/failed.md");
    await client.close();
    expect(structured(result)).toMatchObject({ success: true, status: "awaiting_approval", approvals: [{ tool: "save_output" }] });
    expect(await fileText("docs/failed.md")).toBe("(404)");
  }, 60_000);

  it("leaves the call waiting when its user dismisses the question, and says where it can still be decided", async () => {
    const { client } = await connect(async () => ({ action: "cancel" }));
    const result = await chat(client, "save {project-root}/docs/later.md");
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    const paused = structured(result);
    expect(paused).toMatchObject({ success: true, status: "awaiting_approval", response: "Saving the draft.", approvals: [{ tool: "save_output" }] });
    expect(text(result)).toContain(`POST /api/sessions/${paused["session_id"]}/approvals/${paused["approvals"][0].approval_id}`);
    const pending = await call("alice", "GET", `/api/sessions/${paused["session_id"]}/approvals`);
    expect(pending.body["approvals"]).toEqual([expect.objectContaining({ approval_id: paused["approvals"][0].approval_id, status: "pending" })]);
  }, 60_000);
});

describe("a client without elicitation", () => {
  it("is never asked: the call is refused and the model is told why, so its answer says so", async () => {
    const { client, transport } = await connect();
    expect(transport.sessionId).toMatch(/^ao1\.plain\./);
    const result = await chat(client, "save {project-root}/docs/refused.md");
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    expect(structured(result)["response"]).toMatch(/TOOL_CALL_DENIED.*cannot wait for a member's decision/s);
    expect(await fileText("docs/refused.md")).toBe("(404)");
  }, 60_000);
});
