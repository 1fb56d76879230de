/**
 * Cost and budgets end to end (docs/models.md "Cost totals", "Budgets"): the scripted model reports known token
 * counts (cached ones included) and MODEL_PRICE prices them; a chat's, a project's and a user's totals are the
 * prices times the tokens exactly; a project past its monthly budget is refused with 402 BUDGET_EXCEEDED on
 * /api/chat and /v1 until its owner (and no one else) raises it; a turn that passes the budget half-way stops at
 * its next model call with its file kept; a user past their daily budget is refused in any project; four turns,
 * or four subagents, spending one project's budget at once pass it by at most one model call each.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { repoRoot } from "@agent-orchestrator/testing/service-processes";
import { recordMessages } from "@agent-orchestrator/testing/socket-messages";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token", dave: "dave-token", erin: "erin-token" } as const;
type User = keyof typeof tokens;

/** MODEL_PRICE: per million tokens, input 2, cached input 1, output 4 */
const price = { input: 2, cached: 1, output: 4 };
const small = { prompt_tokens: 1_000, completion_tokens: 500, cached_tokens: 400 };
const large = { prompt_tokens: 10_000, completion_tokens: 5_000, cached_tokens: 0 };
const costOf = (usage: typeof small) =>
  ((usage.prompt_tokens - usage.cached_tokens) * price.input + usage.cached_tokens * price.cached + usage.completion_tokens * price.output) / 1_000_000;
/** 0.0036 */
const smallCost = costOf(small);
/** 0.04 */
const largeCost = costOf(large);
/** a sum as the totals make it, one turn after another from 0 */
const sum = (...costs: number[]) => costs.reduce((total, cost) => total + cost, 0);

/**
 * Holds the first model call of each of `count` turns until all of them have made theirs, so that they surely run
 * at the same time whatever the machine's load.
 */
function allAtOnce(count: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === count) open();
    return opened;
  };
}

const fourTurns = allAtOnce(4);
const fourSubagents = allAtOnce(4);
const isSubagent = (request: ChatRequestBody) => String(request.messages[0]?.content).includes("working as a subagent");
/** A read the model asks for again and again: a turn that never ends on its own, until a budget stops it. */
const readAgain: ScriptedTurn = { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }], usage: small };

/**
 * "keep spending" (a turn) and "spend" (a subagent) read a file at every call until a budget stops them, their
 * first calls held until four have come; "delegate" starts four subagents at once; "large" is answered with the
 * large usage; "write <path>" saves a file, then (after the tool result) answers; anything else is a one-call
 * answer with the small usage.
 */
async function respond(request: ChatRequestBody): Promise<ScriptedTurn> {
  const last = request.messages.at(-1);
  // a chat's first message ends with the system's note of the day
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  const first = last?.role === "user";
  if (isSubagent(request) && said === "spend") {
    if (first) await fourSubagents();
    return readAgain;
  }
  if (said === "keep spending") {
    if (first) await fourTurns();
    return readAgain;
  }
  if (said === "delegate" && first) return { toolCalls: Array.from({ length: 4 }, () => ({ name: "run_subagent", arguments: { prompt: "spend" } })), usage: small };
  if (last?.role === "tool") return { text: "saved", usage: small };
  if (said === "large") return { text: "a long answer", usage: large };
  if (said.startsWith("write ")) return { toolCalls: [{ name: "save_output", arguments: { file_path: `{project-root}/${said.slice(6)}`, content: "# kept\n" } }], usage: small };
  return { text: "hello", usage: small };
}

/** An agent in BMAD's 6.x source form whose menu runs a skill, so it is offered run_subagent (agent-tools.ts). */
const delegatorAgent = `agent:
  metadata:
    id: delegator
    name: Dee
    title: Delegator
  persona:
    role: Hands tasks to subagents
    identity: A lead who delegates.
    communication_style: Brief.
    principles:
      - Delegate.
  menu:
    - trigger: sum
      exec: "skill:bmad-summarize"
      description: Summarize
`;

const delegatorBundle = `type: bundle
name: delegate-studio
version: 1.0.0
description: One agent that delegates.
agents:
  - id: delegator
    name: Dee
    title: Delegator
    file: agents/delegator.agent.yaml
    entry_point: true
resources:
  config: config.yaml
`;

let system: TestSystem;
let bmadRoot: string;

/** The repository's sample bundle (idea-coach), and the delegator's bundle beside it. */
async function bundlesRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "budgets-"));
  await cp(join(repoRoot, "bmad"), join(root, "bmad"), { recursive: true });
  const bundle = join(root, "bmad", "custom", "bundles", "delegate-studio");
  await mkdir(join(bundle, "agents"), { recursive: true });
  await writeFile(join(bundle, "bundle.yaml"), delegatorBundle);
  await writeFile(join(bundle, "agents", "delegator.agent.yaml"), delegatorAgent);
  await writeFile(join(bundle, "config.yaml"), "user_name: Ada\ncommunication_language: English\n");
  return root;
}

beforeAll(async () => {
  bmadRoot = await bundlesRoot();
  system = await startTestSystem({
    responder: respond,
    env: {
      BMAD_ROOT: bmadRoot,
      AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","),
      MODEL_PRICE: `${price.input},${price.cached},${price.output}`,
      BUDGET_PROJECT_MONTHLY: "0.01",
      BUDGET_USER_DAILY: "0.05",
    },
  });
}, 60_000);

afterAll(async () => {
  await system?.stop();
  if (bmadRoot) await rm(bmadRoot, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: Record<string, any>;
}

async function call(user: User, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const chat = (user: User, projectId: string, message: string, sessionId?: string, agentId = "idea-coach") =>
  call(user, "POST", "/api/chat", { agent_id: agentId, project_id: projectId, message, ...(sessionId ? { session_id: sessionId } : {}) });

const nextMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
};
const nextDay = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
};

// one budget's story: each step spends on, or reads, what the one before left in the project, so the steps keep
// their order even when the suite runs shuffled
describe("a project's monthly budget", { sequential: true, shuffle: false }, () => {
  let projectId: string;
  let sessionId: string;

  it("prices each chat's tokens exactly, and refuses the turn after the budget is spent on /api/chat, /v1 and the WebSocket", async () => {
    projectId = (await call("alice", "POST", "/api/projects", { name: "Metered" })).body["project"].id as string;
    expect((await call("alice", "PUT", `/api/projects/${projectId}/members/bob`, { role: "editor" })).status).toBe(200);
    const first = await chat("alice", projectId, "hi");
    expect(first.status).toBe(200);
    expect(first.body["usage"]).toEqual({ prompt_tokens: 1_000, completion_tokens: 500, total_tokens: 1_500, cached_prompt_tokens: 400, cost: smallCost });
    sessionId = first.body["session_id"] as string;
    expect((await chat("alice", projectId, "again", sessionId)).status).toBe(200);
    // the chat's total: both turns
    const view = await call("alice", "GET", `/api/sessions/${sessionId}`);
    expect(view.body["session"].usage).toEqual({ prompt_tokens: 2_000, completion_tokens: 1_000, total_tokens: 3_000, cached_prompt_tokens: 800, cost: sum(smallCost, smallCost) });
    // 0.0072 of 0.01: a member's turn still starts, and spends the rest
    expect((await chat("bob", projectId, "hi")).status).toBe(200);

    const refused = await chat("alice", projectId, "one more");
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: "BUDGET_EXCEEDED",
        message: `The project's monthly budget of 0.01 is spent (${Number(sum(smallCost, smallCost, smallCost).toFixed(6))} this month); it resets at ${nextMonth()}. The project's owner can raise it.`,
      },
    });
    const openAi = await call("alice", "POST", "/v1/chat/completions", { model: "idea-coach", messages: [{ role: "user", content: "hi" }] }, { "x-project-id": projectId });
    expect(openAi.status).toBe(402);
    expect(openAi.body["error"]).toMatchObject({ code: "budget_exceeded", message: expect.stringContaining("monthly budget of 0.01") });
    // and on the WebSocket: the same refusal, from the orchestrator that accepts every door's turns
    const socket = new WebSocket(`${system.url.replace("http", "ws")}/ws`, { headers: { origin: system.url, authorization: `Bearer ${tokens.alice}` } });
    const messages = recordMessages(socket);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    socket.send(JSON.stringify({ type: "chat", agent_id: "idea-coach", project_id: projectId, message: "hi" }));
    expect(await messages.next((message) => message["type"] === "error" || message["type"] === "done")).toMatchObject({ type: "error", error: { code: "BUDGET_EXCEEDED" } });
    socket.close();
    // refused unstarted: the chat has its two turns and is not running
    expect((await call("alice", "GET", `/api/sessions/${sessionId}`)).body["session"]).toMatchObject({ turns: 2, status: "completed" });
  });

  it("shows the project's totals to its members: tokens, cached tokens, cost, by month and by agent", async () => {
    const usage = (await call("bob", "GET", `/api/projects/${projectId}/usage`)).body["usage"];
    const month = new Date().toISOString().slice(0, 7);
    const totals = { prompt_tokens: 3_000, cached_prompt_tokens: 1_200, completion_tokens: 1_500, cost: sum(smallCost, smallCost, smallCost), turns: 3 };
    expect(usage).toEqual({
      project_id: projectId,
      this_month: { period: month, ...totals },
      by_month: [{ period: month, ...totals }],
      all_time: totals,
      by_agent: { "idea-coach": totals },
      monthly_budget: { limit: 0.01, spent: totals.cost, resets_at: nextMonth(), source: "default" },
    });
    expect((await call("carol", "GET", `/api/projects/${projectId}/usage`)).status).toBe(404);
  });

  it("case 212: is the owner's to raise: a member cannot, the owner's own limit lifts the refusal", async () => {
    expect(await call("bob", "PUT", `/api/projects/${projectId}/budget`, { monthly: 100 })).toMatchObject({ status: 403, body: { error: { code: "PROJECT_FORBIDDEN" } } });
    expect((await call("alice", "PUT", `/api/projects/${projectId}/budget`, { monthly: -1 })).status).toBe(400);
    // room for one call more, not two
    const raised = await call("alice", "PUT", `/api/projects/${projectId}/budget`, { monthly: 0.0145 });
    expect(raised.status).toBe(200);
    expect(raised.body["usage"].monthly_budget).toMatchObject({ limit: 0.0145, source: "project" });
    expect((await chat("alice", projectId, "thanks", sessionId)).status).toBe(200);
  });

  it("case 213: stops a running turn at its next model call once the budget is passed, keeping the file it wrote and the chat usable", async () => {
    // 0.0144 of 0.0145: the turn starts, its first call passes the budget, its second is not made
    const calls = system.model.requests.length;
    const stopped = await chat("alice", projectId, "write docs/notes.md", sessionId);
    expect(stopped.status).toBe(402);
    expect(stopped.body["error"]).toMatchObject({ code: "BUDGET_EXCEEDED", message: expect.stringContaining("monthly budget of 0.0145 is spent") });
    expect(system.model.requests.length - calls).toBe(1);
    const file = await call("alice", "GET", `/api/projects/${projectId}/files/docs/notes.md`);
    expect(file).toMatchObject({ status: 200, body: { content: "# kept\n" } });
    const chatView = (await call("alice", "GET", `/api/sessions/${sessionId}`)).body["session"];
    expect(chatView).toMatchObject({ status: "failed", turns: 4 });
    expect(chatView.messages.at(-1)).toMatchObject({ role: "assistant", content: expect.stringContaining("The turn was stopped here") });
    // its one call was counted; the owner lifts the budget and the same chat goes on
    expect((await call("alice", "GET", `/api/projects/${projectId}/usage`)).body["usage"].this_month.turns).toBe(5);
    await call("alice", "PUT", `/api/projects/${projectId}/budget`, { monthly: 1 });
    expect((await chat("alice", projectId, "go on", sessionId)).status).toBe(200);
  });
});

describe("a user's daily budget", () => {
  it("refuses a user's next turn in any project once their day is spent, and shows them their totals", async () => {
    // carol's own project allows much more than her day does
    expect((await call("carol", "PUT", "/api/projects/default/budget", { monthly: 100 })).status).toBe(200);
    expect((await chat("carol", "default", "large")).status).toBe(200);
    expect((await chat("carol", "default", "large")).status).toBe(200);
    const refused = await chat("carol", "default", "large");
    expect(refused).toMatchObject({
      status: 402,
      body: { error: { code: "BUDGET_EXCEEDED", message: `Your daily budget of 0.05 is spent (${Number(sum(largeCost, largeCost).toFixed(6))} today); it resets at ${nextDay()}.` } },
    });
    const usage = (await call("carol", "GET", "/api/usage")).body["usage"];
    expect(usage).toMatchObject({
      user: "carol",
      today: { prompt_tokens: 20_000, cached_prompt_tokens: 0, completion_tokens: 10_000, cost: sum(largeCost, largeCost), turns: 2 },
      this_month: { cost: sum(largeCost, largeCost), turns: 2 },
      daily_budget: { limit: 0.05, spent: sum(largeCost, largeCost), resets_at: nextDay(), source: "default" },
    });
    // another user's day is their own: bob's own turn adds to his, carol's spending is not in it
    const bobBefore = (await call("bob", "GET", "/api/usage")).body["usage"].today;
    expect((await chat("bob", "default", "hi")).status).toBe(200);
    const bobAfter = (await call("bob", "GET", "/api/usage")).body["usage"].today;
    expect(bobAfter.turns - bobBefore.turns).toBe(1);
    expect(bobAfter.cost - bobBefore.cost).toBeCloseTo(smallCost, 10);
    expect(bobAfter.cost).toBeLessThan(largeCost);
  });
});

/**
 * Several turns, or subagents, spending one project's budget at once (docs/models.md "Budgets"): each model call's
 * cost is stored as soon as it ends and every call asks the stored totals first, so together they pass the budget
 * by at most one call each, the call each had under way when the last one was let through.
 */
describe("a budget spent by turns running at once", () => {
  const budget = 0.02;
  /** the most the project may have spent: its budget and one call of each of the four turns or subagents */
  const bound = budget + 4 * smallCost;

  async function meteredProject(owner: User, name: string): Promise<string> {
    const projectId = (await call(owner, "POST", "/api/projects", { name })).body["project"].id as string;
    expect((await call(owner, "PUT", `/api/projects/${projectId}/budget`, { monthly: budget })).status).toBe(200);
    return projectId;
  }

  it("case 223: four turns of one project at once pass its monthly budget by at most one model call each, each counted once", async () => {
    const projectId = await meteredProject("dave", "Four at once");
    const answers = await Promise.all(Array.from({ length: 4 }, () => chat("dave", projectId, "keep spending")));
    for (const answer of answers) expect(answer).toMatchObject({ status: 402, body: { error: { code: "BUDGET_EXCEEDED" } } });
    const month = (await call("dave", "GET", `/api/projects/${projectId}/usage`)).body["usage"].this_month;
    expect(month.cost).toBeGreaterThanOrEqual(budget);
    expect(month.cost).toBeLessThan(bound);
    // each chat keeps what it spent, and the project has every chat's calls once, and each turn once
    const chats = (await call("dave", "GET", `/api/sessions?project_id=${projectId}`)).body["sessions"] as Array<Record<string, any>>;
    expect(chats).toHaveLength(4);
    for (const listed of chats) expect(listed).toMatchObject({ status: "failed", turns: 1 });
    expect(month.cost).toBeCloseTo(sum(...chats.map((listed) => listed["usage"].cost as number)), 10);
    expect(month.prompt_tokens).toBe(sum(...chats.map((listed) => listed["usage"].prompt_tokens as number)));
    expect(month.turns).toBe(4);
    expect((await call("dave", "GET", "/api/usage")).body["usage"].today.cost).toBeCloseTo(month.cost, 10);
  });

  it("case 224: four subagents of one turn at once pass the project's budget by at most one model call each, counted in the project and the user's day", async () => {
    const projectId = await meteredProject("erin", "Four helpers");
    const answer = await chat("erin", projectId, "delegate", undefined, "delegator");
    expect(answer).toMatchObject({ status: 402, body: { error: { code: "BUDGET_EXCEEDED" } } });
    const month = (await call("erin", "GET", `/api/projects/${projectId}/usage`)).body["usage"].this_month;
    expect(month.cost).toBeGreaterThanOrEqual(budget);
    expect(month.cost).toBeLessThan(bound);
    // the turn's usage is its own calls and its subagents': the project and the user's day have each call once
    const [session] = (await call("erin", "GET", `/api/sessions?project_id=${projectId}`)).body["sessions"] as Array<Record<string, any>>;
    expect(session).toMatchObject({ status: "failed", turns: 1 });
    expect(month.cost).toBeCloseTo(session?.["usage"].cost as number, 10);
    expect(month.turns).toBe(1);
    expect((await call("erin", "GET", "/api/usage")).body["usage"].today).toMatchObject({ prompt_tokens: month.prompt_tokens, turns: 1 });
  });
});
