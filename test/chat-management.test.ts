/**
 * Chats one manages (docs/api.md "HTTP", /api/sessions): through the real services, a chat is renamed, found by
 * its title and by what was said in it, exported as Markdown, and deleted with its conversation and its scratch
 * space, while the file it wrote into the project stays the project's; a chat running a turn is not deleted.
 */
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestJson } from "@agent-orchestrator/shared/runtime";
import { FilesListReply, subjects } from "@agent-orchestrator/shared/wire";
import { natsAdminUser } from "@agent-orchestrator/testing/nats-users";
import { testNatsPasswords } from "@agent-orchestrator/testing/nats-harness";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";

let system: TestSystem;
/** The model holds its answer to "hold" until the test lets it go. */
let reachedHold: () => void = () => undefined;
let releaseHold: () => void = () => undefined;

async function respond(request: ChatRequestBody): Promise<ScriptedTurn> {
  const said = withoutSystemNote(String(request.messages.at(-1)?.content ?? ""));
  if (said !== "hold") return toolCallResponder(request);
  await new Promise<void>((resolve) => {
    releaseHold = resolve;
    reachedHold();
  });
  return { text: "held answer" };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond });
}, 60_000);

afterAll(() => system?.stop());

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const chat = (projectId: string, message: string, sessionId?: string) =>
  call("POST", "/api/chat", { agent_id: "idea-coach", project_id: projectId, message, ...(sessionId ? { session_id: sessionId } : {}) });
const save = (path: string, content: string) => `call save_output\n${JSON.stringify({ file_path: path, content })}`;

async function newProject(name: string): Promise<string> {
  return ((await call("POST", "/api/projects", { name })).body["project"] as { id: string }).id;
}

/** The chat's scratch space as the tool-runner keeps it, asked directly: the API answers 404 for a deleted chat whatever remains. */
async function scratchPaths(sessionId: string): Promise<string[]> {
  const connection = await connect({ servers: system.env["NATS_URL"], user: natsAdminUser, pass: testNatsPasswords.admin });
  try {
    const reply = await requestJson(connection, subjects.files("list"), { space: { kind: "session", id: sessionId } }, FilesListReply, { timeoutMs: 10_000 });
    if (!reply.success) throw new Error(reply.error.message);
    return reply.files.map((file) => file.path);
  } finally {
    await connection.close();
  }
}

describe("a chat one manages", () => {
  it("is renamed, found by title and by text, exported, then deleted with its scratch files while its project file stays", async () => {
    const projectId = await newProject("Airships");
    const first = await chat(projectId, "Let us talk about Zeppelins and their hangars");
    expect(first.status).toBe(200);
    const sessionId = first.body["session_id"] as string;
    expect((await chat(projectId, save("{project-root}/docs/keep.md", "# Kept"), sessionId)).status).toBe(200);
    expect((await chat(projectId, save("{session-folder}/scratch.md", "scratch"), sessionId)).status).toBe(200);
    await chat(projectId, "an unrelated chat");

    expect(await call("PATCH", `/api/sessions/${sessionId}`, { title: "  Airship plans " })).toMatchObject({
      status: 200,
      body: { success: true, session: { id: sessionId, title: "Airship plans" } },
    });
    const byTitle = await call("GET", `/api/sessions?project_id=${projectId}&q=AIRSHIP`);
    expect(byTitle.body["sessions"]).toMatchObject([{ id: sessionId, title: "Airship plans", match: "Airship plans" }]);
    const byText = await call("GET", `/api/sessions?project_id=${projectId}&q=zeppelins`);
    expect(byText.body["sessions"]).toMatchObject([{ id: sessionId, match: "Let us talk about Zeppelins and their hangars" }]);

    const view = await call("GET", `/api/sessions/${sessionId}`);
    expect(view.body["session"]).toMatchObject({ title: "Airship plans", workflows: [], files_written: ["{project-root}/docs/keep.md", "{session-folder}/scratch.md"] });

    const exported = await fetch(`${system.url}/api/sessions/${sessionId}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(exported.headers.get("content-disposition")).toBe('attachment; filename="Airship plans.md"');
    const markdown = await exported.text();
    expect(markdown).toMatch(/^# Airship plans\n/);
    expect(markdown).toContain("- Project: Airships");
    expect(markdown).toContain("**You:**\n\nLet us talk about Zeppelins and their hangars");

    expect(await scratchPaths(sessionId)).toEqual(["scratch.md"]);
    expect(await call("DELETE", `/api/sessions/${sessionId}`)).toEqual({ status: 200, body: { success: true } });
    for (const path of [`/api/sessions/${sessionId}`, `/api/sessions/${sessionId}/export`, `/api/sessions/${sessionId}/files`]) {
      expect((await call("GET", path)).status).toBe(404);
    }
    expect((await call("PATCH", `/api/sessions/${sessionId}`, { title: "again" })).status).toBe(404);
    expect((await call("GET", `/api/sessions?project_id=${projectId}&q=zeppelins`)).body["sessions"]).toEqual([]);
    expect(await scratchPaths(sessionId)).toEqual([]);
    const files = await call("GET", `/api/projects/${projectId}/files`);
    expect((files.body["files"] as { path: string }[]).map((file) => file.path)).toContain("docs/keep.md");
  });

  it("is not deleted while it runs a turn: 409 SESSION_BUSY, and the turn answers", async () => {
    const projectId = await newProject("Busy");
    const sessionId = (await chat(projectId, "hello")).body["session_id"] as string;
    const reached = new Promise<void>((resolve) => (reachedHold = resolve));
    const running = chat(projectId, "hold", sessionId);
    await reached;
    const refused = await call("DELETE", `/api/sessions/${sessionId}`);
    releaseHold();
    expect(refused).toMatchObject({ status: 409, body: { success: false, error: { code: "SESSION_BUSY" } } });
    expect(await running).toMatchObject({ status: 200, body: { response: "held answer" } });
    expect((await call("GET", `/api/sessions/${sessionId}`)).status).toBe(200);
  });
});
