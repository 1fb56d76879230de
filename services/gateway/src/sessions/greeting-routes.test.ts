import { beforeAll, describe, expect, it } from "vitest";
import { GetAgentRequest, subjects } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
beforeAll(() => {
  orchestrator.answer();
  orchestrator.addProject("team", "alice", { bob: "editor", carol: "viewer" });
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> });
const post = (user: FixtureUser, path: string, body: unknown) =>
  fixture.api(user, path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });

describe("POST /api/sessions", () => {
  it("starts a chat in the caller's default project (absent or `default`) and answers 201 with its greeting", async () => {
    for (const body of [{ agent_id: "bmm/analyst" }, { agent_id: "bmm/analyst", project_id: "default" }]) {
      const { status, body: reply } = await json(await post("alice", "/api/sessions", body));
      expect(status).toBe(201);
      expect(reply).toEqual({ success: true, session_id: expect.stringMatching(/^greeted\d+$/) as string, project_id: "default-alice", greeting: orchestrator.greeting });
      // `default` is the orchestrator's to resolve, as POST /api/chat leaves it
      // with the caller's name, which `user_name` defaults to (docs/settings.md)
      expect(orchestrator.requests(subjects.sessionStart).at(-1)).toEqual({ user: "alice", caller_name: "alice", agent_id: "bmm/analyst" });
    }
  });

  it("starts it in a named project for an editor, and passes on the orchestrator's refusal of a viewer (403) and a stranger (404)", async () => {
    expect(await json(await post("bob", "/api/sessions", { agent_id: "bmm/analyst", project_id: "team" }))).toMatchObject({ status: 201, body: { project_id: "team" } });
    expect(orchestrator.requests(subjects.sessionStart).at(-1)).toEqual({ user: "bob", caller_name: "bob", agent_id: "bmm/analyst", project_id: "team" });
    expect(await json(await post("carol", "/api/sessions", { agent_id: "bmm/analyst", project_id: "team" }))).toMatchObject({ status: 403, body: { error: { code: "PROJECT_FORBIDDEN" } } });
    expect(await json(await post("dave", "/api/sessions", { agent_id: "bmm/analyst", project_id: "team" }))).toMatchObject({ status: 404, body: { error: { code: "PROJECT_NOT_FOUND" } } });
  });

  it("refuses a body without an agent, with an unknown field or a project id that cannot be one, before asking the orchestrator", async () => {
    const asked = orchestrator.requests(subjects.sessionStart).length;
    for (const body of [{}, { agent_id: "bmm/analyst", message: "hi" }, { agent_id: "bmm/analyst", project_id: "../x" }]) {
      expect(await json(await post("alice", "/api/sessions", body))).toMatchObject({ status: 400, body: { success: false, error: { code: "VALIDATION_ERROR" } } });
    }
    expect(orchestrator.requests(subjects.sessionStart)).toHaveLength(asked);
  });

  it("needs a token", async () => {
    const response = await fetch(`${fixture.url()}/api/sessions`, { method: "POST", body: JSON.stringify({ agent_id: "a" }), headers: { "content-type": "application/json" } });
    expect(response.status).toBe(401);
  });
});

describe("GET /api/agents/:id/greeting", () => {
  it("shows an agent's greeting (ids with a slash too) without starting a chat, to any member of the project", async () => {
    const chats = orchestrator.chats.size;
    const { status, body } = await json(await fixture.api("carol", "/api/agents/bmm/analyst/greeting?project_id=team"));
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, project_id: "team", greeting: orchestrator.greeting });
    expect(orchestrator.requests(subjects.sessionGreeting).at(-1)).toEqual({ user: "carol", caller_name: "carol", agent_id: "bmm/analyst", project_id: "team" });
    expect(orchestrator.chats.size).toBe(chats);
  });

  it("reads the caller's default project without a project, and refuses an unknown query field", async () => {
    expect(await json(await fixture.api("dave", "/api/agents/bmm/analyst/greeting"))).toMatchObject({ status: 200, body: { project_id: "default-dave" } });
    expect(orchestrator.requests(subjects.sessionGreeting).at(-1)).toEqual({ user: "dave", caller_name: "dave", agent_id: "bmm/analyst" });
    expect(await json(await fixture.api("dave", "/api/agents/bmm/analyst/greeting?user=alice"))).toMatchObject({ status: 400, body: { error: { code: "VALIDATION_ERROR" } } });
  });

  it("leaves an agent whose id merely ends in a segment to the agent routes", async () => {
    fixture.respond(subjects.registryAgentsGet, GetAgentRequest, ({ agent_id }) => ({
      success: false,
      error: { code: "AGENT_NOT_FOUND", message: `No agent ${agent_id}` },
    }));
    expect(await json(await fixture.api("alice", "/api/agents/bmm/analyst"))).toMatchObject({ status: 404, body: { error: { code: "AGENT_NOT_FOUND", message: "No agent bmm/analyst" } } });
  });
});
