/**
 * A model per agent, module and project, end to end (docs/models.md): two agents routed to two scripted model
 * servers each reach their own, a subagent follows its agent's route, a project's route answers its chats, the agent
 * list shows which model answers, every call carries its cost with the provider's cached tokens counted, and a
 * model call is ended by silence, never by its length.
 */
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { readSse } from "@agent-orchestrator/testing/sse";
import { lastMessage, startHttpModel, type ChatRequestBody, type HttpModel, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

let system: TestSystem;
let critic: HttpModel;

/** BMAD 6.12's skills-era agents: Mary the analyst answers on the default route, John the PM on his own. */
const analyst = "bmm/analyst";
const pm = "bmm/pm";

/** What the user typed last: the last user message without the system's note of the day (docs/models.md "Prompt caching"). */
const said = (request: ChatRequestBody) => withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));

/** The default model: plain answers, and the silence scripts the timeout tests name. */
function defaultModel(request: ChatRequestBody): ScriptedTurn {
  const message = said(request);
  // a long answer that never pauses as long as the idle limit: 30 pieces, 150 ms apart
  if (message.startsWith("drip")) return { text: "Here it comes", streamedText: { piece: ".", times: 30 }, chunkDelayMs: 150 };
  // a first piece, then silence past the idle limit
  if (message.startsWith("stall")) return { text: "I started and then", chunkDelayMs: 6_000 };
  // nothing at all past the first-byte limit
  if (message.startsWith("think")) return { text: "too late", delayMs: 15_000 };
  return { text: `default model: ${message}` };
}

/** The critic's own server: it delegates when asked, answers its subagent, and reports cached prompt tokens. */
function criticModel(request: ChatRequestBody): ScriptedTurn {
  const usage = { prompt_tokens: 1_000, completion_tokens: 100, cached_tokens: 400 };
  if (lastMessage(request)?.role === "tool") return { text: "critic: the subagent is done", usage };
  const message = said(request);
  if (message.startsWith("delegate")) return { toolCalls: [{ name: "run_subagent", arguments: { prompt: "subtask: list three risks" } }], usage };
  return { text: `${request.model}: ${message}`, usage };
}

const routes = (extra: object[] = []) =>
  JSON.stringify({
    routes: [
      {
        name: "critic-local",
        match: { agent: pm },
        base_url: critic.url,
        model: "critic-model",
        api_key_env: "CRITIC_KEY",
        temperature: 0.2,
        max_output_tokens: 512,
        price: { input: 1, cached_input: 0.5, output: 2 },
        context_window: 32_000,
      },
      ...extra,
    ],
  });

beforeAll(async () => {
  critic = await startHttpModel({ responder: criticModel });
  const bmadRoot = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({
    responder: defaultModel,
    env: {
      BMAD_ROOT: bmadRoot,
      MODEL_ROUTES: routes(),
      CRITIC_KEY: "critic-secret",
      MODEL_PRICE: "0.5,,1",
      MODEL_IDLE_TIMEOUT_MS: "1500",
      MODEL_FIRST_BYTE_TIMEOUT_MS: "5000",
    },
  });
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await critic?.close();
});

async function chat(body: Record<string, unknown>) {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  const events = await readSse(response);
  const event = (type: string) => events.find((entry) => entry.event === type)?.data as Record<string, any> | undefined;
  return { status: response.status, events, session: event("session"), done: event("done"), error: event("error") };
}

const agentList = async (query = "") =>
  ((await (await fetch(`${system.url}/api/agents${query}`)).json()) as { agents: Array<{ id: string; model?: { name: string; route: string } }> }).agents;

describe("a model per agent", () => {
  it("sends each agent's turns to its own model server, with the route's settings and key", async () => {
    const criticBefore = critic.requests.length;
    const defaultBefore = system.model.requests.length;
    const coach = await chat({ agent_id: analyst, message: "hello coach" });
    const reviewer = await chat({ agent_id: pm, message: "hello critic" });

    expect(coach.done).toMatchObject({ response: "default model: hello coach", model: { name: "scripted", route: "default" } });
    expect(reviewer.done).toMatchObject({ response: "critic-model: hello critic", model: { name: "critic-model", route: "critic-local" } });
    expect(reviewer.session).toMatchObject({ agent_id: pm, model: { name: "critic-model", route: "critic-local" } });
    expect(system.model.requests.slice(defaultBefore).map((request) => said(request.body))).toEqual(["hello coach"]);
    const [criticRequest] = critic.requests.slice(criticBefore);
    expect(critic.requests.slice(criticBefore)).toHaveLength(1);
    expect(criticRequest?.body).toMatchObject({ model: "critic-model", temperature: 0.2, max_tokens: 512 });
    expect(criticRequest?.headers["authorization"]).toBe("Bearer critic-secret");
  });

  it("runs a subagent of the agent on the agent's route", async () => {
    const criticBefore = critic.requests.length;
    const defaultBefore = system.model.requests.length;
    const turn = await chat({ agent_id: pm, message: "delegate the risks" });
    expect(turn.done).toMatchObject({ response: expect.stringContaining("critic: the subagent is done"), model: { route: "critic-local" } });
    const criticSaw = critic.requests.slice(criticBefore).map((request) => said(request.body));
    expect(criticSaw).toContain("subtask: list three risks");
    expect(system.model.requests.slice(defaultBefore)).toEqual([]);
  });

  it("shows in the agent list which model answers each agent and its context window, and never a URL or a key", async () => {
    const agents = await agentList();
    // the default route's window is MODEL_CONTEXT_WINDOW's default; the critic's route names its own
    expect(agents.find((agent) => agent.id === analyst)?.model).toEqual({ name: "scripted", route: "default", context_window: 128_000 });
    expect(agents.find((agent) => agent.id === pm)?.model).toEqual({ name: "critic-model", route: "critic-local", context_window: 32_000 });
    const one = (await (await fetch(`${system.url}/api/agents/${pm}`)).json()) as { agent: { model?: unknown } };
    expect(one.agent.model).toEqual({ name: "critic-model", route: "critic-local", context_window: 32_000 });
    const models = (await (await fetch(`${system.url}/v1/models`)).json()) as { data: Array<{ id: string; model?: unknown }> };
    expect(models.data.find((entry) => entry.id === pm)?.model).toEqual({ name: "critic-model", route: "critic-local", context_window: 32_000 });
    const text = JSON.stringify(agents);
    expect(text).not.toContain(critic.url);
    expect(text).not.toContain("critic-secret");
  });
});

describe("the cost of each call", () => {
  it("prices every call at its route's price, the provider's cached prompt tokens at the cached price", async () => {
    const turn = await chat({ agent_id: pm, message: "what does it cost" });
    // 600 fresh prompt tokens at 1, 400 cached at 0.5 and 100 answer tokens at 2, per million
    const call = { prompt_tokens: 1_000, completion_tokens: 100, total_tokens: 1_100, cached_prompt_tokens: 400 };
    expect(turn.done?.["usage_by_call"]).toEqual([{ ...call, cost: expect.closeTo(0.001, 12) }]);
    expect(turn.done?.["usage"]).toMatchObject({ ...call, cost: expect.closeTo(0.001, 12) });
    const session = (await (await fetch(`${system.url}/api/sessions/${String(turn.session?.["session_id"])}`)).json()) as { session: { usage: Record<string, number> } };
    expect(session.session.usage).toMatchObject({ cached_prompt_tokens: 400, cost: expect.closeTo(0.001, 12) });
  });

  it("prices the default route from MODEL_PRICE", async () => {
    const turn = await chat({ agent_id: analyst, message: "and this one" });
    const [call] = turn.done?.["usage_by_call"] as Array<{ prompt_tokens: number; completion_tokens: number; cost: number }>;
    expect(call?.cost).toBeCloseTo(((call?.prompt_tokens ?? 0) * 0.5 + (call?.completion_tokens ?? 0) * 1) / 1_000_000, 12);
  });
});

describe("a model call ended by silence, not by its length", () => {
  it("completes an answer that keeps coming for longer than the idle limit", async () => {
    const turn = await chat({ agent_id: analyst, message: "drip slowly" });
    expect(turn.error).toBeUndefined();
    expect(turn.done?.["response"]).toBe(`Here it comes${".".repeat(30)}`);
  });

  it("stops an answer that goes silent past the idle limit with MODEL_TIMEOUT", async () => {
    const turn = await chat({ agent_id: analyst, message: "stall now" });
    expect(turn.error?.["error"]).toMatchObject({ code: "MODEL_TIMEOUT", message: expect.stringContaining("MODEL_IDLE_TIMEOUT_MS") });
  });

  it("stops a call whose first byte does not come in time with MODEL_TIMEOUT, and does not send it again", async () => {
    const before = system.model.requests.length;
    const turn = await chat({ agent_id: analyst, message: "think hard" });
    expect(turn.error?.["error"]).toMatchObject({ code: "MODEL_TIMEOUT", message: expect.stringContaining("MODEL_FIRST_BYTE_TIMEOUT_MS") });
    expect(system.model.requests.slice(before).map((request) => said(request.body))).toEqual(["think hard"]);
  });
});

describe("the route table checked at start", () => {
  it("stops an orchestrator whose key variable is not set, with one line naming the route and the field", async () => {
    const badRoutes = JSON.stringify({ routes: [{ name: "pm-local", match: { agent: pm }, base_url: critic.url, model: "m", api_key_env: "NO_SUCH_KEY" }] });
    const orchestrator = startServiceProcess("orchestrator", { ...system.env, MODEL_ROUTES: badRoutes });
    const [code] = orchestrator.child.exitCode === null ? ((await once(orchestrator.child, "close")) as [number | null]) : [orchestrator.child.exitCode];
    expect(code).toBe(1);
    expect(orchestrator.lines).toEqual([{ msg: "Invalid configuration: MODEL_ROUTES: route 1 (pm-local): api_key_env: NO_SUCH_KEY is not set" }]);
  });
});

describe("a project's own model", () => {
  let orchestrator: ServiceProcess;

  it("answers the project's chats, and shows in the project's agent list only to its members", async () => {
    const created = (await (
      await fetch(`${system.url}/api/projects`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "Priced" }) })
    ).json()) as { project: { id: string } };
    const projectId = created.project.id;
    // the route table is read at start: an orchestrator with the project's route takes over from the first
    const env = { ...system.env, MODEL_ROUTES: routes([{ name: "priced-project", match: { project: projectId }, base_url: critic.url, model: "project-model" }]) };
    orchestrator = startServiceProcess("orchestrator", env);
    await orchestrator.waitForLine((line) => line["msg"] === "orchestrator ready");
    const first = system.processes.find((service) => service.name === "orchestrator") as ServiceProcess;
    await first.stop();
    system.processes.splice(system.processes.indexOf(first), 1, orchestrator);

    const inProject = await chat({ agent_id: analyst, message: "in the project", project_id: projectId });
    expect(inProject.done).toMatchObject({ response: "project-model: in the project", model: { name: "project-model", route: "priced-project" } });
    // a route with its own server and no api_key_env gets no key: never the default route's (docs/security.md case 207)
    const projectCall = critic.requests.find((request) => request.body.model === "project-model");
    expect(projectCall?.headers["authorization"]).not.toContain(system.env["OPENAI_API_KEY"]);
    // the agent's own route comes first: the critic keeps its model in the project too
    const criticInProject = await chat({ agent_id: pm, message: "me too", project_id: projectId });
    expect(criticInProject.done).toMatchObject({ model: { route: "critic-local" } });
    const outside = await chat({ agent_id: analyst, message: "outside" });
    expect(outside.done).toMatchObject({ model: { route: "default" } });

    expect((await agentList(`?project_id=${projectId}`)).find((agent) => agent.id === analyst)?.model).toEqual({ name: "project-model", route: "priced-project", context_window: 128_000 });
    expect((await agentList()).find((agent) => agent.id === analyst)?.model).toEqual({ name: "scripted", route: "default", context_window: 128_000 });
    const stranger = await fetch(`${system.url}/api/agents?project_id=00000000-0000-4000-8000-000000000000`);
    expect(stranger.status).toBe(404);
  }, 60_000);
});
