import { beforeAll, describe, expect, it } from "vitest";
import { subjects } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
beforeAll(() => {
  orchestrator.answer();
  orchestrator.addProject("shared", "alice", { bob: "editor", carol: "viewer" });
});

const send = (user: FixtureUser, method: string, path: string, body?: unknown) =>
  fixture.api(user, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }) });
const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const failure = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

describe("projects", () => {
  it("creates a project (201) that its creator owns and lists, and nobody else sees", async () => {
    const created = await json(await send("alice", "POST", "/api/projects", { name: "  Launch plan " }));
    expect(created).toEqual({ status: 201, body: { success: true, project: expect.objectContaining({ name: "Launch plan", owner: "alice", role: "owner" }) } });
    const id = created.body["project"].id as string;
    const mine = await json(await send("alice", "GET", "/api/projects"));
    expect(mine.body["projects"]).toContainEqual(expect.objectContaining({ id, role: "owner" }));
    expect((await json(await send("dave", "GET", "/api/projects"))).body["projects"]).not.toContainEqual(expect.objectContaining({ id }));
    expect(await json(await send("dave", "GET", `/api/projects/${id}`))).toEqual({ status: 404, body: failure("PROJECT_NOT_FOUND") });
  });

  it("lists projects shared with the caller with the caller's role", async () => {
    const { body } = await json(await send("carol", "GET", "/api/projects"));
    expect(body).toEqual({ success: true, projects: [expect.objectContaining({ id: "shared", owner: "alice", role: "viewer" })] });
  });

  it("names the caller's personal default project `default`, made on first use", async () => {
    const { status, body } = await json(await send("bob", "GET", "/api/projects/default"));
    expect(status).toBe(200);
    expect(body["project"]).toMatchObject({ id: FakeOrchestrator.defaultProjectOf("bob"), owner: "bob", role: "owner", personal: true });
    const renamed = await json(await send("bob", "PATCH", "/api/projects/default", { name: "Bob's own" }));
    expect(renamed.body["project"]).toMatchObject({ id: FakeOrchestrator.defaultProjectOf("bob"), name: "Bob's own" });
  });

  it("answers a project id that cannot exist like a missing project, and asks nobody", async () => {
    const asked = orchestrator.received.length;
    expect(await json(await send("alice", "GET", "/api/projects/not.a.token"))).toEqual({ status: 404, body: failure("PROJECT_NOT_FOUND") });
    expect(orchestrator.received.length).toBe(asked);
  });

  it("lets only the owner rename and delete, and validates the name", async () => {
    expect(await json(await send("bob", "PATCH", "/api/projects/shared", { name: "mine now" }))).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    expect(await json(await send("dave", "PATCH", "/api/projects/shared", { name: "mine now" }))).toEqual({ status: 404, body: failure("PROJECT_NOT_FOUND") });
    expect((await json(await send("alice", "PATCH", "/api/projects/shared", { name: "" }))).body).toEqual(failure("VALIDATION_ERROR"));
    expect((await json(await send("alice", "PATCH", "/api/projects/shared", { name: "x", owner: "bob" }))).status).toBe(400);
    expect((await json(await send("alice", "POST", "/api/projects", {}))).status).toBe(400);
    const renamed = await json(await send("alice", "PATCH", "/api/projects/shared", { name: "Team work" }));
    expect(renamed).toEqual({ status: 200, body: { success: true, project: expect.objectContaining({ id: "shared", name: "Team work", role: "owner" }) } });
    expect(orchestrator.requests(subjects.projectRequest("rename")).at(-1)).toEqual({ user: "alice", project_id: "shared", name: "Team work" });
  });

  it("refuses a project name with a bidi format character, created or renamed (docs/security.md case 218)", async () => {
    const asked = orchestrator.requests(subjects.projectRequest("create")).length;
    const refused = await json(await send("alice", "POST", "/api/projects", { name: "Budget\u202Eslx.exe" }));
    expect(refused).toEqual({ status: 400, body: failure("VALIDATION_ERROR") });
    expect(refused.body["error"].message).toContain("bidi format characters");
    expect(orchestrator.requests(subjects.projectRequest("create"))).toHaveLength(asked);
    expect((await json(await send("alice", "PATCH", "/api/projects/shared", { name: "\u2067Team\u2069" }))).status).toBe(400);
  });

  it("refuses to delete a project while a turn runs (409), then deletes it", async () => {
    const { body } = await json(await send("alice", "POST", "/api/projects", { name: "short-lived" }));
    const id = body["project"].id as string;
    orchestrator.busy.add(id);
    expect(await json(await send("alice", "DELETE", `/api/projects/${id}`))).toEqual({ status: 409, body: failure("PROJECT_BUSY") });
    orchestrator.busy.delete(id);
    expect(await json(await send("alice", "DELETE", `/api/projects/${id}`))).toEqual({ status: 200, body: { success: true, deleted: { sessions: 0, files: 0 } } });
    expect((await send("alice", "GET", `/api/projects/${id}`)).status).toBe(404);
  });
});

describe("members", () => {
  it("lists the members to any member, and to nobody else", async () => {
    expect(await json(await send("carol", "GET", "/api/projects/shared/members"))).toEqual({
      status: 200,
      body: { success: true, members: [{ user: "alice", role: "owner" }, { user: "bob", role: "editor" }, { user: "carol", role: "viewer" }] },
    });
    expect((await send("dave", "GET", "/api/projects/shared/members")).status).toBe(404);
  });

  it("lets the owner add, change and remove members; others are refused", async () => {
    const { body } = await json(await send("alice", "POST", "/api/projects", { name: "team" }));
    const id = body["project"].id as string;
    const added = await json(await send("alice", "PUT", `/api/projects/${id}/members/dave`, { role: "viewer" }));
    expect(added.body["members"]).toContainEqual({ user: "dave", role: "viewer" });
    expect((await json(await send("dave", "GET", `/api/projects/${id}`))).body["project"]).toMatchObject({ role: "viewer" });
    expect(await json(await send("dave", "PUT", `/api/projects/${id}/members/dave`, { role: "editor" }))).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    expect((await send("alice", "PUT", `/api/projects/${id}/members/dave`, { role: "owner" })).status).toBe(400);
    const changed = await json(await send("alice", "PUT", `/api/projects/${id}/members/dave`, { role: "editor" }));
    expect(changed.body["members"]).toContainEqual({ user: "dave", role: "editor" });
    const removed = await json(await send("alice", "DELETE", `/api/projects/${id}/members/dave`));
    expect(removed.body["members"]).toEqual([{ user: "alice", role: "owner" }]);
    expect((await send("dave", "GET", `/api/projects/${id}`)).status).toBe(404);
    expect(orchestrator.requests(subjects.projectRequest("member_delete")).at(-1)).toEqual({ user: "alice", project_id: id, member: "dave" });
  });

  it("needs a bearer token like every /api route", async () => {
    const response = await fetch(`${fixture.url()}/api/projects`);
    expect(response.status).toBe(401);
  });
});
