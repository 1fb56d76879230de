/**
 * BMAD's method across agents, chats and people (docs/projects.md): on a real 6.12 install and a real 4.44
 * install, the analyst's brief written in one chat is the file the PM's chat reads through the path its
 * workflow names, the PM's PRD is read by the architect in a chat of another member, a viewer reads
 * everything and may neither run a turn nor write, a non-member sees nothing of the project, and two chats
 * writing one file at once leave two revisions and lose nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { fileToolsResponder } from "@agent-orchestrator/testing/file-tools-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token", dave: "dave-token" } as const;
type User = keyof typeof tokens;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(system: TestSystem, user: User, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const chat = (system: TestSystem, user: User, agent: string, project: string, message: string) =>
  call(system, user, "POST", "/api/chat", { agent_id: agent, project_id: project, message });

/** The two installs and where each release's planning documents live in a project. */
const journeys = [
  {
    version: "6.12.0",
    analyst: "bmm/analyst",
    pm: "bmm/pm",
    architect: "bmm/architect",
    briefPath: "{planning_artifacts}/product-brief.md",
    /** the PM's PRD workflow discovers inputs in {planning_artifacts}, which is this folder of the project */
    planningFolder: "_bmad-output/planning-artifacts",
    prdPath: "{planning_artifacts}/prd.md",
  },
  {
    version: "4.44.3",
    analyst: "bmm/analyst",
    pm: "bmm/pm",
    architect: "bmm/architect",
    briefPath: "docs/brief.md",
    planningFolder: "docs",
    prdPath: "docs/prd.md",
  },
];

// one project's story, step by step: the viewer reads what the journey wrote, so the steps keep their order
// also under --sequence.shuffle (the two journeys may still run in either order)
for (const journey of journeys) describe(`a project on BMAD '${journey.version}'`, { shuffle: false }, () => {
  let system: TestSystem;
  let project: string;

  beforeAll(async () => {
    const root = await ensureBmadInstall({ version: journey.version, tool: "claude-code" });
    system = await startTestSystem({
      responder: fileToolsResponder,
      env: { BMAD_ROOT: root, AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",") },
    });
    const created = await call(system, "alice", "POST", "/api/projects", { name: "Lighthouse" });
    expect(created.status).toBe(201);
    project = String((created.body["project"] as { id: string }).id);
    expect((await call(system, "alice", "PUT", `/api/projects/${project}/members/bob`, { role: "editor" })).status).toBe(200);
    expect((await call(system, "alice", "PUT", `/api/projects/${project}/members/carol`, { role: "viewer" })).status).toBe(200);
  }, 240_000);

  afterAll(() => system?.stop());

  it("hands the brief, the PRD and the architecture's input from agent to agent, chat to chat, member to member", async () => {
    const brief = await chat(system, "alice", journey.analyst, project, `save ${journey.briefPath}\n# Product brief\nA lighthouse for ships.`);
    expect(brief.body).toMatchObject({ success: true, project_id: project });
    expect(String(brief.body["response"])).toMatch(/^saved \{project-root\}\/.+ r1$/);

    // a new chat of the PM, after the analyst's ended: its input discovery finds the brief where BMAD names it
    const listed = await chat(system, "alice", journey.pm, project, `list {project-root}/${journey.planningFolder}`);
    expect(String(listed.body["response"]).split(",")).toContain(journey.briefPath.split("/").at(-1));
    const read = await chat(system, "alice", journey.pm, project, `read {project-root}/${journey.planningFolder}/${journey.briefPath.split("/").at(-1) ?? ""}`);
    expect(read.body["response"]).toContain("A lighthouse for ships.");
    expect(read.body["session_id"]).not.toBe(brief.body["session_id"]);
    const prd = await chat(system, "alice", journey.pm, project, `save ${journey.prdPath}\n# PRD\nFR1: the light turns.`);
    expect(prd.body).toMatchObject({ success: true });

    // the architect, run by another member of the project
    const architecture = await chat(system, "bob", journey.architect, project, `read ${journey.prdPath}`);
    expect(architecture.body).toMatchObject({ success: true });
    expect(architecture.body["response"]).toContain("FR1: the light turns.");

    const files = await call(system, "bob", "GET", `/api/projects/${project}/files`);
    const prdFile = (files.body["files"] as Array<{ path: string; author: { user: string; agent_id?: string; session_id?: string } }>).find((file) =>
      file.path.endsWith("prd.md"),
    );
    expect(prdFile?.path).toBe(`${journey.planningFolder}/prd.md`);
    expect(prdFile?.author).toMatchObject({ user: "alice", agent_id: journey.pm, session_id: prd.body["session_id"] });
  });

  it("lets a viewer list and read everything, and refuses them any turn or write (docs/security.md case 148)", async () => {
    const files = await call(system, "carol", "GET", `/api/projects/${project}/files`);
    expect(files.status).toBe(200);
    const paths = (files.body["files"] as Array<{ path: string }>).map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining([`${journey.planningFolder}/prd.md`]));
    const prd = await call(system, "carol", "GET", `/api/projects/${project}/files/${journey.planningFolder}/prd.md`);
    expect(prd.body["content"]).toContain("FR1");
    const sessions = await call(system, "carol", "GET", `/api/sessions?project_id=${project}`);
    expect((sessions.body["sessions"] as unknown[]).length).toBeGreaterThanOrEqual(4);

    const turn = await chat(system, "carol", journey.pm, project, "save docs/mine.md\nnot allowed");
    expect(turn.status).toBe(403);
    expect(turn.body).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
    const removal = await call(system, "carol", "DELETE", `/api/projects/${project}/files/${journey.planningFolder}/prd.md`);
    expect(removal.status).toBe(403);
  });

  it("answers a non-member 404 for the project, its files and its chats, as if none existed (docs/security.md case 147)", async () => {
    const sessions = await call(system, "alice", "GET", `/api/sessions?project_id=${project}`);
    const someChat = String((sessions.body["sessions"] as Array<{ id: string }>)[0]?.id);
    for (const path of [`/api/projects/${project}`, `/api/projects/${project}/files`, `/api/projects/${project}/files/${journey.planningFolder}/prd.md`, `/api/sessions/${someChat}`]) {
      const answer = await call(system, "dave", "GET", path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
    const missing = await call(system, "dave", "GET", "/api/projects/no-such-project");
    expect(missing.body["error"]).toEqual((await call(system, "dave", "GET", `/api/projects/${project}`)).body["error"]);
    const turn = await chat(system, "dave", journey.pm, project, "hello");
    expect(turn.status).toBe(404);
  });

  it("keeps both of two chats' writes to one file as revisions (docs/security.md case 153)", async () => {
    const target = `${journey.planningFolder}/sprint-status.yaml`;
    const [first, second] = await Promise.all([
      chat(system, "alice", journey.pm, project, `save {project-root}/${target}\nstory-1: done`),
      chat(system, "bob", journey.architect, project, `save {project-root}/${target}\nstory-2: in-progress`),
    ]);
    expect([first.body["success"], second.body["success"]]).toEqual([true, true]);
    const revisions = await call(system, "carol", "GET", `/api/projects/${project}/files/${target}?revisions`);
    const kept = revisions.body["revisions"] as Array<{ revision: number; author: { user: string } }>;
    expect(kept.map((revision) => revision.revision)).toEqual([2, 1]);
    expect(kept.map((revision) => revision.author.user).sort()).toEqual(["alice", "bob"]);
    const contents = await Promise.all(
      kept.map(async (revision) => String((await call(system, "carol", "GET", `/api/projects/${project}/files/${target}?revision=${revision.revision}`)).body["content"])),
    );
    expect(contents.sort()).toEqual(["story-1: done", "story-2: in-progress"]);
  });
});
