import { HelpCatalogueRequest, subjects } from "@agent-orchestrator/shared/wire";
import { beforeAll, describe, expect, it } from "vitest";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);
const entry = (skill: string, outputs: string, agent_id: string) => ({ module: "bmm", skill, name: skill, code: "X", description: `Runs ${skill}`, phase: "anytime", required: false, after: [], outputLocation: "planning_artifacts", outputs, agent_id });

beforeAll(() => {
  orchestrator.answer();
  store.answer();
  orchestrator.addProject("team", "alice", { carol: "viewer" });
  fixture.respond(subjects.registryHelpGet, HelpCatalogueRequest, () => ({
    success: true,
    source: "_bmad/_config/bmad-help.csv",
    entries: [entry("bmad-product-brief", "product brief", "bmm/analyst"), entry("bmad-create-prd", "prd", "bmm/pm")],
  }));
  store.put({ kind: "project", id: "team" }, "_bmad-output/planning-artifacts/product-brief.md", "# Brief\n", { user: "alice", session_id: "chat-1", agent_id: "bmm/analyst" });
});

describe("the method at a glance", () => {
  it("shows any member the phases with the project's documents and the next workflow with its agent", async () => {
    const response = await fixture.api("carol", "/api/projects/team/overview");
    expect(response.status).toBe(200);
    const { overview } = (await response.json()) as { overview: Record<string, any> };
    expect(overview).toMatchObject({ current: "planning", catalogue: "_bmad/_config/bmad-help.csv", next: { skill: "bmad-create-prd", agent_id: "bmm/pm", phase: "planning" } });
    expect(overview["phases"][0]).toMatchObject({ phase: "analysis", done: true, artifacts: [{ kind: "product-brief", author: { user: "alice", agent_id: "bmm/analyst" } }] });
  });

  it("answers a non-member 404, like a missing project", async () => {
    expect((await fixture.api("dave", "/api/projects/team/overview")).status).toBe(404);
  });
});
