import { beforeAll, describe, expect, it } from "vitest";
import { RepositoryPushRequest, subjects } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const commit = "c".repeat(40);
const asked: unknown[] = [];

// a tool-runner whose repository of project `app` has a remote and a branch `main`
beforeAll(() => {
  orchestrator.answer();
  orchestrator.addProject("app", "alice", { bob: "editor", carol: "viewer" });
  fixture.respond(subjects.repository("push"), RepositoryPushRequest, (request) => {
    asked.push(request);
    if (request.branch === "main") return { success: true, branch: "main", commit, remote: { url: "https://git.example.com/app.git" }, pushed: true };
    if (request.branch === "stale") return { success: false, error: { code: "REMOTE_PUSH_FAILED", message: "The remote refused the push: ! [rejected] main -> main (non-fast-forward)" } };
    return { success: false, error: { code: "BRANCH_NOT_FOUND", message: `The repository has no branch ${request.branch}` } };
  });
});

const push = async (user: "alice" | "bob" | "carol" | "dave", body: unknown, project = "app") => {
  const response = await fixture.api(user, `/api/projects/${project}/repository/push`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

describe("POST /api/projects/:id/repository/push", () => {
  it("asks a tool-runner to push the owner's branch and answers what was pushed", async () => {
    expect(await push("alice", { branch: "main" })).toEqual({ status: 200, body: { success: true, branch: "main", commit, remote: { url: "https://git.example.com/app.git" }, pushed: true } });
    expect(asked.at(-1)).toEqual({ project_id: "app", branch: "main", user: "alice", wait_ms: 300_000 });
  });

  it("refuses another member (403) and anyone else (404) without asking a tool-runner", async () => {
    const before = asked.length;
    expect((await push("bob", { branch: "main" })).body["error"].code).toBe("PROJECT_FORBIDDEN");
    expect((await push("carol", { branch: "main" })).status).toBe(403);
    expect((await push("dave", { branch: "main" })).status).toBe(404);
    expect((await push("alice", { branch: "main" }, "nothing")).status).toBe(404);
    expect(asked.length).toBe(before);
  });

  it("refuses a branch name git would misread, or another key, before asking (400)", async () => {
    const before = asked.length;
    for (const body of [{ branch: "a..b" }, { branch: "../main" }, { branch: "main\n" }, { branch: "\u202emain" }, { branch: "main", force: true }, {}]) {
      expect((await push("alice", body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(asked.length).toBe(before);
  });

  it("passes the tool-runner's refusals on with their status", async () => {
    expect(await push("alice", { branch: "gone" })).toMatchObject({ status: 404, body: { error: { code: "BRANCH_NOT_FOUND" } } });
    expect(await push("alice", { branch: "stale" })).toMatchObject({ status: 502, body: { error: { code: "REMOTE_PUSH_FAILED", message: expect.stringContaining("non-fast-forward") } } });
  });
});
