/**
 * A long BMAD workflow within a small model's context window (docs/models.md "Compaction"), end to end: BMAD 6.12's
 * step-file workflow `bmad-create-epics-and-stories` run by a scripted PM for twelve turns on a route whose window is
 * 16,000 tokens, against a model server that refuses, as OpenAI does, any request past it. No request passes the
 * window; the chat is compacted; the call after its hand-off holds the agent's activation once, the current step
 * file and the user's latest message; the workflow goes on at its step and keeps writing the same document; the chat
 * keeps every message. A provider's refusal is met with one compaction and one retry, never a loop; a member
 * compacts a chat by hand, others may not (docs/security.md cases 269, 270, 272).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { epicsDocument, epicsStepFiles, epicsWorkflowResponder, epicsWorkflowTurns } from "@agent-orchestrator/testing/epics-workflow-responder";
import type { ChatRequestBody, RecordedRequest, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { readSse } from "@agent-orchestrator/testing/sse";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token" } as const;
type User = keyof typeof tokens;
const pm = "bmm/pm";
const analyst = "bmm/analyst";
const window = 16_000;

let system: TestSystem;
let root: string;
let project: string;
/** what the scripted model does besides the workflow: refuse every agent call as too long, or answer slowly */
let mode: "workflow" | "refuse" | "slow" = "workflow";

function responder(request: ChatRequestBody): ScriptedTurn {
  const summary = String(request.messages[0]?.content).startsWith("You write the hand-off note");
  if (mode === "refuse" && !summary) return { status: 400, errorCode: "context_length_exceeded" };
  if (mode === "slow" && !summary) return { ...epicsWorkflowResponder(request), delayMs: 3_000 };
  return epicsWorkflowResponder(request);
}

async function call(user: User, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function chat(agent: string, message: string, sessionId?: string) {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ agent_id: agent, message, project_id: project, ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  const events = await readSse(response);
  const of = (type: string) => events.filter((event) => event.event === type).map((event) => event.data as Record<string, any>);
  return { sessionId: String(of("session")[0]?.["session_id"] ?? sessionId), compactions: of("compaction"), done: of("done")[0], error: of("error")[0] };
}

const isSummaryCall = (request: RecordedRequest) => String(request.body.messages[0]?.content).startsWith("You write the hand-off note");
const contents = (request: RecordedRequest) => request.body.messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "")));

beforeAll(async () => {
  root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({
    responder,
    env: {
      BMAD_ROOT: root,
      AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","),
      // the PM on a small local model: a 16,000-token window, 2,000 of it kept for the answer
      MODEL_ROUTES: JSON.stringify({ routes: [{ name: "pm-small", match: { agent: pm }, model: "scripted", context_window: window, output_reserve: 2_000 }] }),
    },
  });
  system.model.setContextWindow(window);
  const created = await call("alice", "POST", "/api/projects", { name: "Lighthouse" });
  project = String(created.body["project"]["id"]);
  expect((await call("alice", "PUT", `/api/projects/${project}/members/bob`, { role: "viewer" })).status).toBe(200);
}, 240_000);

afterAll(() => system?.stop());

describe("a twelve-turn 6.12 workflow on a 16,000-token window", { shuffle: false }, () => {
  let sessionId: string;
  const compactedAt: Array<{ turn: number; stage: string; reason: string; before_tokens: number; after_tokens: number }> = [];
  const turnStart: number[] = [];

  it("runs every turn within the window, compacting on the way", async () => {
    const agents = await call("alice", "GET", `/api/agents?project_id=${project}`);
    expect((agents.body["agents"] as Array<{ id: string; model?: unknown }>).find((agent) => agent.id === pm)?.model).toEqual({ name: "scripted", route: "pm-small", context_window: window });

    for (const [index, turn] of epicsWorkflowTurns.entries()) {
      turnStart.push(system.model.requests.length);
      const result = await chat(pm, turn.message, sessionId);
      expect({ turn: index + 1, error: result.error }).toEqual({ turn: index + 1, error: undefined });
      expect(String(result.done?.["response"])).not.toContain("LOST");
      sessionId = result.sessionId;
      for (const compaction of result.compactions) compactedAt.push({ turn: index + 1, ...(compaction as { stage: string; reason: string; before_tokens: number; after_tokens: number }) });
    }
    const requests = system.model.requests;
    expect(requests.filter((request) => request.refused)).toEqual([]);
    expect(Math.max(...requests.map((request) => request.promptTokens))).toBeLessThanOrEqual(window);
    expect(compactedAt.length).toBeGreaterThan(0);
    expect(compactedAt.some((compaction) => compaction.stage === "summary")).toBe(true);
    for (const compaction of compactedAt) {
      expect(compaction.reason).toBe("threshold");
      expect(compaction.after_tokens).toBeLessThan(compaction.before_tokens);
    }
  }, 600_000);

  it("sends after a hand-off the activation once, the current step file as it is on disk and the user's latest message", async () => {
    const requests = system.model.requests;
    const first = requests.findIndex((request, index) => index > 0 && !isSummaryCall(request) && contents(request)[1]?.startsWith("[From the system: this conversation was compacted"));
    expect(first).toBeGreaterThan(0);
    const after = requests[first] as RecordedRequest;
    const turn = turnStart.filter((start) => start <= first).length;
    const { step, message } = epicsWorkflowTurns[turn - 1] ?? { step: 0, message: "" };
    const texts = contents(after);
    // the activation: one system message, its text nowhere else
    const activation = texts[0] ?? "";
    expect(after.body.messages.filter((entry) => entry.role === "system")).toHaveLength(1);
    expect(texts.join("\n").split(activation.slice(0, 400)).length - 1).toBe(1);
    // the step the workflow is at, read from the install now (the step file or the one before, when the turn moves on)
    const stepTitles = await Promise.all(
      epicsStepFiles.map(async (file) => (await readFile(join(root, ".claude/skills/bmad-create-epics-and-stories/steps", file), "utf8")).split("\n")[0] ?? ""),
    );
    const handoff = texts[1] ?? "";
    expect([stepTitles[step - 1], stepTitles[step - 2]]).toContain(stepTitles.find((title) => handoff.includes(title)));
    expect(handoff).toContain(message);
    expect(handoff).toContain(epicsDocument);
  });

  it("goes on at its step and writes the same document, its earlier sections intact", async () => {
    const file = await call("alice", "GET", `/api/projects/${project}/files/_bmad-output/planning-artifacts/lighthouse-epics.md`);
    expect(file.status).toBe(200);
    const document = String(file.body["content"]);
    expect(document).toContain("stepsCompleted: [1, 2, 3]");
    const sections = [...document.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(sections).toEqual(["Requirements Inventory", "Epic 1: Sign-in", "Epic 2: Ship tracking", "Epic 3: Storm alerts", "Epic 4: Monthly reports", "Story 1.1: As a keeper I sign in with a link from my email.", "Story 2.1: As a keeper I see every ship within 20 miles on the map.", "Story 3.1: As a keeper I get an alert when the wind passes 50 knots.", "Story 4.1: As the harbour office I receive a report on the first of the month."]);
    // the last turn read step 4 after marking step 3 done
    const last = system.model.requests.at(-1) as RecordedRequest;
    expect(JSON.stringify(last.body.messages)).toContain("step-04-final-validation.md");
  });

  it("keeps every message in the chat, and shows where it was compacted", async () => {
    const view = await call("bob", "GET", `/api/sessions/${sessionId}`);
    const messages = view.body["session"]["messages"] as Array<{ role: string; content: string }>;
    expect(messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual(epicsWorkflowTurns.map((turn) => turn.message));
    expect(messages.filter((message) => message.role === "assistant")).toHaveLength(epicsWorkflowTurns.length);
    const points = view.body["session"]["compactions"] as Array<{ message_index: number; stage: string }>;
    expect(points.map((point) => point.stage)).toEqual(compactedAt.map((compaction) => compaction.stage));
    for (const point of points) expect(point.message_index).toBeLessThanOrEqual(messages.length);
  });

  it("compacts the chat by hand for its owner, never for a viewer or a stranger (docs/security.md case 269)", async () => {
    expect((await call("bob", "POST", `/api/sessions/${sessionId}/compact`)).body).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
    const stranger = await call("carol", "POST", `/api/sessions/${sessionId}/compact`);
    expect({ status: stranger.status, code: stranger.body["error"]["code"] }).toEqual({ status: 404, code: "SESSION_NOT_FOUND" });
    const compacted = await call("alice", "POST", `/api/sessions/${sessionId}/compact`);
    expect(compacted.status).toBe(200);
    expect(compacted.body).toMatchObject({ success: true, compaction: { stage: "summary" } });
    expect(compacted.body["compaction"]["after_tokens"]).toBeLessThan(compacted.body["compaction"]["before_tokens"]);
    const view = await call("alice", "GET", `/api/sessions/${sessionId}`);
    expect((view.body["session"]["compactions"] as unknown[]).length).toBe(compactedAt.length + 1);
  });

  it("refuses to compact a chat while its turn runs (docs/security.md case 272)", async () => {
    mode = "slow";
    try {
      const running = chat(pm, "Epic 5: Fog horns. Ships hear the horn in fog.", sessionId);
      await expect.poll(async () => (await call("alice", "GET", `/api/sessions/${sessionId}`)).body["session"]["status"], { timeout: 10_000 }).toBe("running");
      const refused = await call("alice", "POST", `/api/sessions/${sessionId}/compact`);
      expect({ status: refused.status, code: refused.body["error"]["code"] }).toEqual({ status: 409, code: "SESSION_BUSY" });
      expect((await running).done).toBeDefined();
    } finally {
      mode = "workflow";
    }
  });
});

describe("a provider's refusal of a prompt as too long", () => {
  it("is met with one compaction and one retry", async () => {
    const started = await chat(analyst, "hello");
    const before = system.model.requests.length;
    system.model.enqueue({ status: 400, errorCode: "context_length_exceeded" });
    const turn = await chat(analyst, "and again", started.sessionId);
    expect(turn.error).toBeUndefined();
    expect(turn.compactions).toMatchObject([{ stage: "summary", reason: "overflow" }]);
    const calls = system.model.requests.slice(before);
    expect(calls.map((request) => (isSummaryCall(request) ? "summary" : "agent"))).toEqual(["agent", "summary", "agent"]);
    expect(contents(calls[2] as RecordedRequest)[1]).toContain("and again");
  });

  it("never loops: a refusal of the compacted prompt ends the turn (docs/security.md case 270)", async () => {
    const started = await chat(analyst, "hello");
    const before = system.model.requests.length;
    mode = "refuse";
    try {
      const turn = await chat(analyst, "once more", started.sessionId);
      expect(turn.error).toMatchObject({ error: { code: "MODEL_UNAVAILABLE", message: expect.stringContaining("context window") } });
      expect(system.model.requests.slice(before).map((request) => (isSummaryCall(request) ? "summary" : "agent"))).toEqual(["agent", "summary", "agent"]);
    } finally {
      mode = "workflow";
    }
  });
});
