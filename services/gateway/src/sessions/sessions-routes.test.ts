import { beforeAll, describe, expect, it } from "vitest";
import { GetAgentRequest, subjects, type AgentDefinition } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
beforeAll(() => {
  orchestrator.answer();
  orchestrator.addProject("crew", "alice", { bob: "editor", carol: "viewer" });
  fixture.respond(subjects.registryAgentsGet, GetAgentRequest, ({ agent_id }) =>
    agent_id === agent.id ? { success: true, agent } : { success: false, error: { code: "AGENT_NOT_FOUND", message: "Agent not found" } },
  );
});

const agent: AgentDefinition = {
  id: "a",
  name: "Mary",
  title: "Analyst",
  icon: "",
  description: "",
  bundleName: "tests",
  source: "bundle",
  persona: { role: "Analyst", identity: "", communication_style: "", principles: "" },
  criticalActions: [],
  menu: [],
  bundlePath: "bmad/custom/bundles/tests",
  filePath: "bmad/custom/bundles/tests/agents/a.md",
};

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const send = (user: FixtureUser, method: string, path: string, body?: unknown) =>
  fixture.api(user, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }) });

describe("PATCH /api/sessions/:id", () => {
  it("renames a chat with the title trimmed, and answers the chat as listed", async () => {
    orchestrator.addChat("to-rename", "crew", "bob");
    const { status, body } = await json(await send("bob", "PATCH", "/api/sessions/to-rename", { title: "  Launch plan  " }));
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, session: { id: "to-rename", title: "Launch plan" } });
    expect(orchestrator.requests(subjects.sessionRename).at(-1)).toEqual({ session_id: "to-rename", user: "bob", title: "Launch plan" });
  });

  it("refuses an empty, a blank or a too long title, or another field, before asking the orchestrator", async () => {
    orchestrator.addChat("kept-title", "crew", "bob");
    const asked = orchestrator.requests(subjects.sessionRename).length;
    // a bidi format character makes the title read as another (docs/security.md case 218)
    for (const body of [{ title: "" }, { title: "   " }, { title: "x".repeat(201) }, {}, { title: "ok", extra: 1 }, { title: "notes\u202Etxt.exe" }, { title: "a\u200Fb" }]) {
      expect(await json(await send("bob", "PATCH", "/api/sessions/kept-title", body))).toMatchObject({ status: 400, body: { error: { code: "VALIDATION_ERROR" } } });
    }
    expect(orchestrator.requests(subjects.sessionRename)).toHaveLength(asked);
  });

  it("answers another member 403 and a non-member 404, as the orchestrator decides", async () => {
    orchestrator.addChat("bobs-chat", "crew", "bob");
    expect(await json(await send("carol", "PATCH", "/api/sessions/bobs-chat", { title: "mine" }))).toMatchObject({ status: 403, body: { error: { code: "PROJECT_FORBIDDEN" } } });
    expect(await json(await send("dave", "PATCH", "/api/sessions/bobs-chat", { title: "mine" }))).toMatchObject({ status: 404, body: { error: { code: "SESSION_NOT_FOUND" } } });
    expect(await json(await send("alice", "PATCH", "/api/sessions/bobs-chat", { title: "the owner's" }))).toMatchObject({ status: 200 });
  });
});

describe("DELETE /api/sessions/:id", () => {
  it("deletes a chat: {success}, then 404", async () => {
    orchestrator.addChat("doomed", "crew", "bob");
    expect(await json(await send("bob", "DELETE", "/api/sessions/doomed"))).toEqual({ status: 200, body: { success: true } });
    expect(orchestrator.requests(subjects.sessionDelete).at(-1)).toEqual({ session_id: "doomed", user: "bob" });
    expect((await send("bob", "GET", "/api/sessions/doomed")).status).toBe(404);
  });

  it("answers 409 SESSION_BUSY while a turn runs, 404 for an id that cannot be a chat's", async () => {
    orchestrator.addChat("running", "crew", "bob", "running");
    expect(await json(await send("bob", "DELETE", "/api/sessions/running"))).toMatchObject({ status: 409, body: { success: false, error: { code: "SESSION_BUSY" } } });
    expect(await json(await send("bob", "DELETE", "/api/sessions/a.b"))).toMatchObject({ status: 404, body: { error: { code: "SESSION_NOT_FOUND" } } });
  });
});

describe("GET /api/sessions?project_id=&q=", () => {
  it("searches one project's chats, the project named or `default`", async () => {
    orchestrator.addChat("found-one", "crew", "alice").title = "Pricing research";
    const { status, body } = await json(await send("carol", "GET", "/api/sessions?project_id=crew&q=PRICING"));
    expect(status).toBe(200);
    expect(body["sessions"]).toMatchObject([{ id: "found-one", match: "Pricing research" }]);
    expect(orchestrator.requests(subjects.sessionSearch).at(-1)).toEqual({ user: "carol", project_id: "crew", query: "PRICING" });
    await send("carol", "GET", "/api/sessions?project_id=default&q=x");
    expect(orchestrator.requests(subjects.sessionSearch).at(-1)).toEqual({ user: "carol", project_id: FakeOrchestrator.defaultProjectOf("carol"), query: "x" });
  });

  it("needs a project and 1–200 characters; a non-member gets 404 like a missing project", async () => {
    expect(await json(await send("carol", "GET", "/api/sessions?q=pricing"))).toMatchObject({ status: 400, body: { error: { code: "VALIDATION_ERROR" } } });
    expect((await send("carol", "GET", "/api/sessions?project_id=crew&q=")).status).toBe(400);
    expect((await send("carol", "GET", `/api/sessions?project_id=crew&q=${"x".repeat(201)}`)).status).toBe(400);
    expect(await json(await send("dave", "GET", "/api/sessions?project_id=crew&q=pricing"))).toMatchObject({ status: 404, body: { error: { code: "PROJECT_NOT_FOUND" } } });
  });
});

describe("GET /api/sessions/:id/export", () => {
  it("gives any member the chat as a Markdown attachment named after its title", async () => {
    const chat = orchestrator.addChat("exported", "crew", "bob");
    chat.title = 'Plan: "v2"';
    orchestrator.views.set("exported", {
      messages: [
        { role: "user", content: "Draft the brief", attachments: [{ path: "inputs/notes.pdf", markdown_path: "inputs/notes.pdf.md" }] },
        { role: "assistant", content: "Here it is." },
      ],
      workflows: ["bmad-product-brief"],
      files_written: ["{project-root}/_bmad-output/brief.md"],
    });
    const response = await send("carol", "GET", "/api/sessions/exported/export");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="Plan v2.md"');
    const text = await response.text();
    expect(text).toContain('# Plan: "v2"');
    expect(text).toContain("- Agent: Mary (`a`)");
    expect(text).toContain("- Project: crew");
    expect(text).toContain("- Workflows: `bmad-product-brief`");
    expect(text).toContain("**You:**\n\nDraft the brief\n\nAttached:\n- `inputs/notes.pdf`");
    expect(text).toContain("**Mary:**\n\nHere it is.");
    expect((await send("dave", "GET", "/api/sessions/exported/export")).status).toBe(404);
  });
});
