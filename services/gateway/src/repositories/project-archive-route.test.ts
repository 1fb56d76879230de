import { beforeAll, describe, expect, it } from "vitest";
import { BranchArchiveRequest, FilesListRequest, SourceRequest, subjects } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const commit = "a".repeat(40);
const zip = Buffer.from("PK the branch's zip");
const archivesAsked: string[] = [];

// a tool-runner with one repository, of project `repo`; project `plain` has none, no stored file and no code snapshot
beforeAll(() => {
  orchestrator.answer();
  orchestrator.addProject("repo", "alice", { carol: "viewer" });
  orchestrator.addProject("plain", "alice");
  fixture.respond(subjects.repository("archive"), BranchArchiveRequest, (request) => {
    archivesAsked.push(request.project_id);
    if (request.project_id !== "repo") return { success: true, archive: null };
    return { success: true, archive: { branch: "main", commit, working_tree: false, body: { inline: zip.toString("base64") } } };
  });
  fixture.respond(subjects.files("list"), FilesListRequest, () => ({ success: true, files: [], bytes: 0, unservable_names: 0 }));
  fixture.respond(subjects.files("source_info"), SourceRequest, () => ({ success: true, source: null }));
});

/** What the gateway asked the orchestrator and the tool-runner while `act` ran. */
async function asked(act: () => Promise<Response>): Promise<{ response: Response; projects: number; archives: string[] }> {
  const projectsBefore = orchestrator.requests(subjects.projectRequest("get")).length;
  const archivesBefore = archivesAsked.length;
  const response = await act();
  return { response, projects: orchestrator.requests(subjects.projectRequest("get")).length - projectsBefore, archives: archivesAsked.slice(archivesBefore) };
}

describe("GET /api/projects/:id/archive", () => {
  it("serves a project with a repository its branch's zip, asking for the project and the archive once each; source is not read", async () => {
    const { response, projects, archives } = await asked(() => fixture.api("carol", "/api/projects/repo/archive?source=yes"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="repo-main-${commit.slice(0, 12)}.zip"`);
    expect(response.headers.get("x-repository-commit")).toBe(commit);
    expect(Buffer.from(await response.arrayBuffer()).equals(zip)).toBe(true);
    expect({ projects, archives }).toEqual({ projects: 1, archives: ["repo"] });
  });

  it("serves a project without a repository its stored files' zip from the same questions, not asking for the project again", async () => {
    const { response, projects, archives } = await asked(() => fixture.api("alice", "/api/projects/plain/archive?source=1"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="plain.zip"');
    expect(response.headers.get("x-repository-commit")).toBe(null);
    // a zip that holds no file is its end record alone
    expect(Buffer.from(await response.arrayBuffer()).subarray(0, 4).toString("latin1")).toBe("PK\u0005\u0006");
    expect({ projects, archives }).toEqual({ projects: 1, archives: ["plain"] });
  });

  it("refuses a caller who is no member as a missing project without asking the tool-runner, and a bad source where it is read", async () => {
    const outsider = await asked(() => fixture.api("bob", "/api/projects/repo/archive"));
    expect(outsider.response.status).toBe(404);
    expect(((await outsider.response.json()) as { error: { code: string } }).error.code).toBe("PROJECT_NOT_FOUND");
    expect(outsider.archives).toEqual([]);
    const badSource = await fixture.api("alice", "/api/projects/plain/archive?source=yes");
    expect(badSource.status).toBe(400);
  });
});
