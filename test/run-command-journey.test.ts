/**
 * `run_command` through the whole system (docs/commands.md, docs/repositories.md, docs/approvals.md), on a real
 * BMAD 6.12 install and the scripted model: a project without a repository is not offered the tool; once the owner
 * attaches a bundle of a small Node project whose `node --test` fails, the model runs `git status` at once (a
 * read-only git command is allowed by default), `node --test` after the owner approves it (it fails), fixes the
 * code with edit_file, runs the tests again (approved: they pass) and commits (approved); the commit is on the
 * chat's branch `chat/<id>` with the member as its author and the `Agent:` and `Chat:` trailers.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { makeTestRepository } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token-5150" };
const agent = "bmm/analyst";
let system: TestSystem;
let project: string;
let session: string | undefined;
let removeRepository: (() => Promise<void>) | undefined;

async function api(method: string, route: string, body?: string | Uint8Array, type?: string) {
  const response = await fetch(`${system.url}${route}`, { method, headers: { authorization: `Bearer ${tokens.alice}`, ...(type ? { "content-type": type } : {}) }, ...(body === undefined ? {} : { body }) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A message of alice's in the chat that asks the scripted model for one tool call. */
const ask = (name: string, args: Record<string, unknown>, projectId = project) =>
  api("POST", "/api/chat", JSON.stringify({ agent_id: agent, project_id: projectId, ...(session ? { session_id: session } : {}), message: `call ${name}\n${JSON.stringify(args)}` }), "application/json");

/** One run_command call as the model saw its result; a call the project's policy asks about is approved by alice first. */
async function command(line: string, approval: "allowed" | "approve"): Promise<Record<string, any>> {
  const reply = await ask("run_command", { command: line });
  session ??= reply.body["session_id"] as string;
  if (approval === "allowed") {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return JSON.parse(reply.body["response"] as string) as Record<string, any>;
  }
  expect(reply, JSON.stringify(reply.body)).toMatchObject({ status: 202, body: { status: "awaiting_approval", approvals: [{ tool: "run_command", arguments: { command: line } }] } });
  const decided = await api("POST", `/api/sessions/${session}/approvals/${reply.body["approvals"][0].approval_id as string}`, JSON.stringify({ decision: "approve" }), "application/json");
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  await expect.poll(async () => (await api("GET", `/api/sessions/${session}`)).body["session"].status, { timeout: 60_000 }).toBe("completed");
  const messages = (await api("GET", `/api/sessions/${session}`)).body["session"].messages as Array<{ role: string; content: string }>;
  return JSON.parse(messages.at(-1)?.content ?? "{}") as Record<string, any>;
}

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root, AUTH_TOKENS: `alice:${tokens.alice}`, COMMANDS: "on" } });
  const made = await makeTestRepository({
    "package.json": '{ "name": "calc", "type": "module", "scripts": { "test": "node --test" } }\n',
    "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
    "test/add.test.js": 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\ntest("adds", () => assert.equal(add(2, 3), 5));\n',
  });
  removeRepository = made.remove;
  project = (await api("POST", "/api/projects", JSON.stringify({ name: "Calc" }), "application/json")).body["project"].id as string;
  const attached = await api("PUT", `/api/projects/${project}/repository`, await readFile(made.bundle), "application/x-git-bundle");
  expect(attached.status, JSON.stringify(attached.body)).toBe(201);
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await removeRepository?.();
});

describe("run_command", { shuffle: false }, () => {
  it("is not offered in a project without a repository", async () => {
    const other = (await api("POST", "/api/projects", JSON.stringify({ name: "Plans only" }), "application/json")).body["project"].id as string;
    const reply = await ask("run_command", { command: "git status" }, other);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(JSON.parse(reply.body["response"] as string)).toMatchObject({ success: false, error: { code: "UNKNOWN_TOOL" } });
  }, 60_000);

  it("runs a read-only git command without asking, in the chat's working tree", async () => {
    const status = await command("git status", "allowed");
    expect(status, JSON.stringify(status)).toMatchObject({ success: true, exit_code: 0 });
    expect(status["stdout"]).toContain(`On branch chat/${session}`);
  }, 60_000);

  it("runs the failing tests once approved, then, after edit_file fixes the code, runs them passing", async () => {
    const failing = await command("node --test", "approve");
    expect(failing, JSON.stringify(failing)).toMatchObject({ success: false, exit_code: 1 });
    expect(failing["stdout"]).toMatch(/^[#ℹ] fail 1$/m);
    const fixed = await ask("edit_file", { file_path: "{project-root}/src/add.js", old_string: "a - b", new_string: "a + b" });
    expect(JSON.parse(fixed.body["response"] as string), JSON.stringify(fixed.body)).toMatchObject({ success: true });
    const passing = await command("node --test", "approve");
    expect(passing, JSON.stringify(passing)).toMatchObject({ success: true, exit_code: 0 });
    expect(passing["stdout"]).toMatch(/^[#ℹ] pass 1$/m);
  }, 180_000);

  it("commits once approved, on the chat's branch, with alice as its author and the Agent: and Chat: trailers", async () => {
    const committed = await command('git commit -am "fix"', "approve");
    expect(committed, JSON.stringify(committed)).toMatchObject({ success: true, exit_code: 0 });
    const log = await api("GET", `/api/projects/${project}/repository/branches/${encodeURIComponent(`chat/${session}`)}/commits`);
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body["commits"][0]).toMatchObject({ subject: "fix", author: { name: "alice" }, agent_id: agent, chat_id: session });
  }, 60_000);
});
