/**
 * A chat's branch and its work through the whole system (docs/repositories.md "Branches and working trees", "A
 * chat's work", "Scripts in the working tree", "Commands the project allows"), on a real BMAD 6.12 install and the
 * scripted model: a chat started on a named branch changes files there; a viewer reads the branch's commits and the
 * chat's work; only an editor or the owner discards it, never while the chat's turn waits for a decision;
 * bmad-retrospective's git_evidence.py reads the history from the working tree; the repository settings are the
 * owner's. Security cases 309, 312, 313, 314, 316. (A commit by the model, with its authorship and trailers, is
 * checked in the tool-runner's tests: services/tool-runner/src/repository/chat-work.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { attachBundle } from "@agent-orchestrator/testing/attach-bundle";
import { makeTestRepository, testGit } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token", mallory: "mallory-token" };
type Member = keyof typeof tokens;
const agent = "bmm/dev";
let system: TestSystem;
let project: string;
let plain: string;
let first: string;
let head: string;
const removals: Array<() => Promise<void>> = [];

async function api(user: Member, method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** One turn that makes one tool call; the tool's result as the model saw it, and the chat. */
async function tool(name: string, args: Record<string, unknown>, chat: { session?: string; branch?: string } = {}): Promise<Record<string, any>> {
  const reply = await api("alice", "POST", "/api/chat", {
    agent_id: agent,
    project_id: project,
    ...(chat.session ? { session_id: chat.session } : {}),
    ...(chat.branch ? { branch: chat.branch } : {}),
    message: `call ${name}\n${JSON.stringify(args)}`,
  });
  if (reply.status === 202) return reply.body;
  expect(reply.body["success"], JSON.stringify(reply.body)).toBe(true);
  return { ...(JSON.parse(reply.body["response"] as string) as Record<string, any>), session_id: reply.body["session_id"] };
}

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root, AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",") } });
  const made = await makeTestRepository({
    "package.json": '{ "name": "calc", "type": "module", "scripts": { "test": "node --test" } }\n',
    "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
    "test/add.test.js": 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\ntest("adds", () => assert.equal(add(2, 3), 5));\n',
  }, { "story-1-2": { "src/mul.js": "export const mul = (a, b) => a * b;\n" } });
  removals.push(made.remove);
  first = testGit(made.folder, ["rev-parse", "HEAD"]).trim();
  testGit(made.folder, ["merge", "-q", "--no-ff", "-m", "1-2: merge story 1-2", "story-1-2"]);
  head = testGit(made.folder, ["rev-parse", "HEAD"]).trim();
  testGit(made.folder, ["bundle", "create", "-q", made.bundle, "--all"]);
  const created = await api("alice", "POST", "/api/projects", { name: "Calc" });
  project = created.body["project"].id as string;
  plain = (await api("alice", "POST", "/api/projects", { name: "No repository" })).body["project"].id as string;
  await api("alice", "PUT", `/api/projects/${project}/members/bob`, { role: "editor" });
  await api("alice", "PUT", `/api/projects/${project}/members/carol`, { role: "viewer" });
  expect((await attachBundle(system.url, project, made.bundle, tokens.alice)).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await Promise.all(removals.map((remove) => remove()));
});

describe("the project's repository settings", { shuffle: false }, () => {
  it("are written by the owner only, and checked (case 316)", async () => {
    const settings = { repository: { verify: ["node --test"] } };
    expect((await api("bob", "PUT", `/api/projects/${project}/settings`, settings)).status).toBe(403);
    expect((await api("carol", "PUT", `/api/projects/${project}/settings`, settings)).status).toBe(403);
    expect((await api("mallory", "PUT", `/api/projects/${project}/settings`, settings)).status).toBe(404);
    const hostile = await api("alice", "PUT", `/api/projects/${project}/settings`, { repository: { verify: ["node --test\ncurl evil"] } });
    expect(hostile).toMatchObject({ status: 400, body: { error: { code: "VALIDATION_ERROR" } } });
    const put = await api("alice", "PUT", `/api/projects/${project}/settings`, settings);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await api("carol", "GET", `/api/projects/${project}/settings`)).body["settings"].repository).toEqual({ verify: ["node --test"] });
  });
});

describe("a chat on a named branch", { shuffle: false }, () => {
  let session: string;

  it("refuses a branch name git or a reader would misread, or another chat's (case 309)", async () => {
    for (const branch of ["../main", "a..b", "feature/.hidden", "fix\u202egnp", "chat/another-chat", "x.lock", "a b"]) {
      const refused = await api("alice", "POST", "/api/chat", { agent_id: agent, project_id: project, branch, message: "Hello" });
      expect(refused.status, branch).toBe(400);
      expect(refused.body["error"].code).toBe("VALIDATION_ERROR");
      expect((await api("alice", "POST", "/api/sessions", { agent_id: agent, project_id: project, branch })).status, branch).toBe(400);
    }
  });

  it("works on that branch, made at the default branch's last commit by its first change; the chat stays on it", async () => {
    const edited = await tool("edit_file", { file_path: "{project-root}/src/add.js", old_string: "a - b", new_string: "a + b" }, { branch: "story/1-3-add" });
    expect(edited["success"], JSON.stringify(edited)).toBe(true);
    session = edited["session_id"] as string;
    expect((await api("carol", "GET", `/api/sessions/${session}`)).body["session"]).toMatchObject({ branch: "story/1-3-add" });
    const branches = (await api("carol", "GET", `/api/projects/${project}/repository`)).body["repository"].branches;
    expect(branches).toEqual(expect.arrayContaining([{ name: "story/1-3-add", head }]));
    const elsewhere = await api("alice", "POST", "/api/chat", { agent_id: agent, project_id: project, session_id: session, branch: "main", message: "Hello" });
    expect(elsewhere.status).toBe(400);
    // another chat on its own branch still sees the default branch's file
    expect((await tool("read_file", { file_path: "{project-root}/src/add.js" }))["content"]).toContain("a - b");
  });

  it("shows each branch's commits and the chat's work since it started to any member, and nothing to others (case 313)", async () => {
    const saved = await tool("save_output", { file_path: "{project-root}/docs/notes.md", content: "one\ntwo\n" }, { session });
    expect(saved["success"], JSON.stringify(saved)).toBe(true);
    const log = await api("carol", "GET", `/api/projects/${project}/repository/branches/story/1-3-add/commits`);
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ branch: "story/1-3-add", head, more: false });
    expect(log.body["commits"].map((commit: { subject: string }) => commit.subject).sort()).toEqual(["1-2: merge story 1-2", "first", "on story-1-2"]);
    expect(log.body["commits"][0]).toMatchObject({ id: head, author: { name: "Test", email: "test@example.com" } });
    const page = await api("carol", "GET", `/api/projects/${project}/repository/branches/main/commits?limit=1&skip=1`);
    expect(page.body).toMatchObject({ commits: [expect.any(Object)], more: true });
    const changes = await api("carol", "GET", `/api/sessions/${session}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.body["changes"]).toMatchObject({ branch: "story/1-3-add", base: head, head, clean: false, commits: [] });
    expect(changes.body["changes"].files).toEqual([
      { path: "docs/notes.md", change: "added", additions: 2, deletions: 0, binary: false, uncommitted: true },
      { path: "src/add.js", change: "modified", additions: 1, deletions: 1, binary: false, uncommitted: true },
    ]);
    expect(changes.body["changes"].patch).toContain("+  return a + b;");
    expect((await api("mallory", "GET", `/api/sessions/${session}/changes`)).status).toBe(404);
    expect((await api("carol", "GET", `/api/projects/${project}/repository/branches/..%2Fmain/commits`)).status).toBe(400);
    expect((await api("carol", "GET", `/api/projects/${project}/repository/branches/no-such-branch/commits`)).status).toBe(404);
    expect((await api("mallory", "GET", `/api/projects/${project}/repository/branches/main/commits`)).status).toBe(404);
  });

  it("refuses to discard while the chat's turn waits for a decision", async () => {
    await api("alice", "PUT", `/api/projects/${project}/settings`, { approvals: { tools: { save_output: "ask" } } });
    const paused = await tool("save_output", { file_path: "{project-root}/docs/later.md", content: "later" }, { session });
    expect(paused).toMatchObject({ status: "awaiting_approval" });
    expect((await api("alice", "POST", `/api/sessions/${session}/changes/discard`)).body["error"].code).toBe("SESSION_BUSY");
    expect((await api("alice", "POST", `/api/sessions/${session}/cancel`)).status).toBe(200);
    // the cancel rejects the waiting call and ends the turn, on an orchestrator
    await waitUntil(async () => (await api("alice", "GET", `/api/sessions/${session}`)).body["session"].status === "cancelled", { message: "the paused turn's end" });
    await api("alice", "PUT", `/api/projects/${project}/settings`, { approvals: {} });
  });

  it("discards the uncommitted changes for an editor or the owner only (case 312)", async () => {
    expect((await api("carol", "POST", `/api/sessions/${session}/changes/discard`)).status).toBe(403);
    expect((await api("mallory", "POST", `/api/sessions/${session}/changes/discard`)).status).toBe(404);
    const discarded = await api("bob", "POST", `/api/sessions/${session}/changes/discard`);
    expect(discarded.status, JSON.stringify(discarded.body)).toBe(200);
    expect(discarded.body["changes"]).toMatchObject({ clean: true, files: [], head });
    expect((await tool("read_file", { file_path: "{project-root}/docs/notes.md" }, { session }))["error"].code).toBe("FILE_NOT_FOUND");
    expect((await tool("read_file", { file_path: "{project-root}/src/add.js" }, { session }))["content"]).toContain("a - b");
    const audit = await api("alice", "GET", `/api/projects/${project}/audit`);
    expect(audit.body["records"]).toEqual(expect.arrayContaining([expect.objectContaining({ action: "changes_discarded", actor: "bob", project_id: project, target: session, outcome: "ok" })]));
  });

  it("lets bmad-retrospective's git_evidence.py read the history in the working tree (case 314)", async () => {
    const script = "{project-root}/.claude/skills/bmad-retrospective/scripts/git_evidence.py";
    const evidence = await tool("run_script", { command: `python3 ${script} --repo {project-root} --range ${first}..${head} --stories 1-2` }, { session });
    expect(evidence["success"], JSON.stringify(evidence)).toBe(true);
    const measured = JSON.parse(evidence["stdout"] as string) as Record<string, any>;
    expect(measured).toMatchObject({ commit_count: 2, merge_count: 1 });
    expect(JSON.stringify(measured["files"])).toContain("src/mul.js");
  });
});
describe("a chat's branch in the session view", () => {
  it("is the chat's own in a project with a repository, and absent in one without", async () => {
    const own = await tool("read_file", { file_path: "{project-root}/package.json" });
    expect((await api("alice", "GET", `/api/sessions/${own["session_id"]}`)).body["session"].branch).toBe(`chat/${own["session_id"]}`);
    const elsewhere = await api("alice", "POST", "/api/chat", { agent_id: agent, project_id: plain, message: "Hello" });
    expect((await api("alice", "GET", `/api/sessions/${elsewhere.body["session_id"]}`)).body["session"]).not.toHaveProperty("branch");
  });
});
