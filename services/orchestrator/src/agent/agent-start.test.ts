import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { requestJson } from "@agent-orchestrator/shared/runtime";
import { ProjectReply, subjects, type AgentDefinition } from "@agent-orchestrator/shared/wire";
import { startHttpModel, type HttpModel } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, testAgent, type FakeToolRunner } from "../testing/orchestrator-fixture.js";
import { loadedAgentSkill, skillAgent } from "../testing/skill-agent-fixture.js";

/** A 4.x agent as the registry serves it: its activation-instructions are its critical actions. */
const v4Agent: AgentDefinition = {
  ...testAgent,
  id: "bmm/pm",
  name: "John",
  title: "Product Manager",
  source: "module",
  bundleName: "bmm",
  format: "v4",
  release: "4.44.3",
  criticalActions: [
    "STEP 1: Read THIS ENTIRE FILE - it holds the persona",
    "STEP 3: Load and read `.bmad-core/core-config.yaml` (project configuration) before any greeting",
    "STEP 4: Greet the user and run *help",
  ],
  menu: [{ trigger: "create-prd", description: "use task create-doc with prd-tmpl.yaml" }],
  bundlePath: ".bmad-core",
  filePath: ".bmad-core/agents/pm.md",
};

/** A 6.0.x XML agent: its second activation step loads the module config, which lacks output_folder. */
const xmlAgent: AgentDefinition = {
  ...testAgent,
  id: "bmm/analyst",
  format: "v6",
  release: "6.0.4",
  source: "module",
  bundleName: "bmm",
  criticalActions: [
    "Load persona from this current agent file (already in context)",
    "🚨 IMMEDIATE ACTION REQUIRED - BEFORE ANY OUTPUT:\n - Load and read {project-root}/_bmad/bmm/config.yaml NOW",
    "Show greeting using {user_name} from config, communicate in {communication_language}",
  ],
  menu: [{ trigger: "DP", description: "Document Project", workflow: "{project-root}/_bmad/bmm/workflows/document-project/workflow.yaml" }],
  bundlePath: "_bmad/bmm",
  filePath: "_bmad/bmm/agents/analyst.md",
};

const prefix = "agent-start.";
let connection: NatsConnection;
let model: HttpModel;
let runner: FakeToolRunner;
let orchestrator: Orchestrator;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel();
  runner = startFakeServices(connection, prefix, { toolRunner: true, agents: [v4Agent, xmlAgent, { ...skillAgent, id: "bmm/skill-analyst" }] });
  runner.files["{project-root}/.bmad-core/core-config.yaml"] = "devStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md\n";
  runner.files["{project-root}/_bmad/bmm/config.yaml"] = 'planning_artifacts: "{project-root}/{output_folder}/planning-artifacts"\nuser_name: Ada\n';
  runner.skills["bmad-agent-analyst"] = loadedAgentSkill;
  orchestrator = await startTestOrchestrator(connection, prefix, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted", MAX_ITERATIONS: "3" });
});

afterAll(async () => {
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

const lastRequest = () => model.requests.at(-1)?.body;
const systemPrompt = () => String(lastRequest()?.messages[0]?.content);
const offeredTools = () => lastRequest()?.tools?.map((tool) => tool.function.name);
const callsSince = (before: number) => runner.calls.slice(before).map((call) => ({ subject: call.subject.slice(prefix.length), ...call.body }));

describe("agent start by the system", () => {
  it("starts a 4.x agent by loading .bmad-core/core-config.yaml and offers it only the file tools", async () => {
    model.enqueue({ text: "Hello" });
    const before = runner.calls.length;
    const { final, runId } = await runTestTurn(connection, prefix, "hi", { agentId: v4Agent.id });
    expect(final).toMatchObject({ type: "done" });
    expect(callsSince(before)).toMatchObject([
      { subject: "tool.read_file", call_id: `${runId}:1:start:{project-root}/.bmad-core/core-config.yaml`, arguments: { file_path: "{project-root}/.bmad-core/core-config.yaml" } },
    ]);
    expect(systemPrompt()).toContain("--- {project-root}/.bmad-core/core-config.yaml ---\ndevStoryLocation: docs/stories\nprd:\n  prdFile: docs/prd.md");
    expect(systemPrompt()).toContain("- devStoryLocation: docs/stories");
    expect(systemPrompt()).toContain("This agent's dependencies map to .bmad-core/{type}/{name}");
    expect(offeredTools()).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files"]);
  });

  it("marks the start's calls as the agent's start, and names the chat, its project, its owner and its agent in every call", async () => {
    model.enqueue({ toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] }, { text: "done" });
    const before = runner.calls.length;
    const { final, runId, sessionId } = await runTestTurn(connection, prefix, "hi", { owner: "alice" });
    expect(final).toMatchObject({ type: "done", response: "done" });
    const personal = await requestJson(connection, prefix + subjects.projectRequest("get"), { user: "alice" }, ProjectReply, { timeoutMs: 5_000 });
    const context = { session_id: sessionId, project_id: personal.success ? personal.project.id : "", user: "alice", agent_id: "tester" };
    expect(callsSince(before)).toMatchObject([
      { call_id: `${runId}:1:start:{bundle-root}/config.yaml`, context: { ...context, agent_start: true } },
      { call_id: expect.not.stringContaining(":start:"), context },
    ]);
    expect(callsSince(before)[1]?.context).not.toHaveProperty("agent_start");
  });

  it("reports a refused turn as refused even when the agent could not have started, and leaves the session as it was", async () => {
    model.enqueue({ text: "first" });
    const first = await runTestTurn(connection, prefix, "hi", { agentId: "bmm/skill-analyst", owner: "alice" });
    expect(first.final).toMatchObject({ type: "done" });
    const requestsBefore = model.requests.length;
    const skill = runner.skills["bmad-agent-analyst"];
    delete runner.skills["bmad-agent-analyst"];
    try {
      const other = await runTestTurn(connection, prefix, "let me in", { sessionId: first.sessionId, agentId: "bmm/skill-analyst", owner: "mallory" });
      expect(other.events.map((event) => event.type)).toEqual(["error"]);
      expect(other.final).toMatchObject({ error: { code: "SESSION_NOT_FOUND" } });
      const broken = await runTestTurn(connection, prefix, "and now?", { sessionId: first.sessionId, agentId: "bmm/skill-analyst", owner: "alice" });
      expect(broken.final).toMatchObject({ type: "error", error: { code: "AGENT_INIT_FAILED" } });
    } finally {
      if (skill) runner.skills["bmad-agent-analyst"] = skill;
    }
    expect(model.requests.length).toBe(requestsBefore);
    model.enqueue({ text: "still here" });
    const again = await runTestTurn(connection, prefix, "back", { sessionId: first.sessionId, agentId: "bmm/skill-analyst", owner: "alice" });
    expect(again.final).toMatchObject({ type: "done", response: "still here" });
    expect(lastRequest()?.messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      expect.stringMatching(endsWithDateNote("hi")),
      "back",
    ]);
  });

  it("answers a 4.x agent's call to a tool it was not offered with UNKNOWN_TOOL and no tool-runner request", async () => {
    model.enqueue({ toolCalls: [{ name: "preload_workflow", arguments: { workflow_path: "x/workflow.yaml" } }] }, { text: "ok" });
    const before = runner.calls.length;
    const { final, events } = await runTestTurn(connection, prefix, "go", { agentId: v4Agent.id });
    expect(final).toMatchObject({ type: "done", response: "ok" });
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ success: false, error_code: "UNKNOWN_TOOL" });
    const toolMessage = lastRequest()?.messages.find((message) => message.role === "tool");
    expect(String(toolMessage?.content)).toContain("Available tools: read_file, save_output, edit_file, list_files, find_files, search_files.");
    expect(callsSince(before)).toHaveLength(1);
  });

  it("starts a 6.0.x XML agent with its module config, planning_artifacts mapped into the session folder", async () => {
    model.enqueue({ text: "Hello Ada" });
    const { final } = await runTestTurn(connection, prefix, "hi", { agentId: xmlAgent.id });
    expect(final).toMatchObject({ type: "done" });
    expect(systemPrompt()).toContain("- planning_artifacts: {project-root}/_bmad-output/planning-artifacts");
    expect(systemPrompt()).toContain("- Show greeting using Ada from config, communicate in English");
    expect(offeredTools()).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files", "preload_workflow"]);
  });

  it("starts a skill agent with one load_skill call and builds its prompt from the loaded skill", async () => {
    model.enqueue({ text: "🔎 Hello Ada" });
    const before = runner.calls.length;
    const { final, runId } = await runTestTurn(connection, prefix, "hi", { agentId: "bmm/skill-analyst" });
    expect(final).toMatchObject({ type: "done", response: "🔎 Hello Ada" });
    expect(callsSince(before)).toEqual([
      {
        subject: "tool.load_skill",
        call_id: `${runId}:1:start:skill`,
        context: expect.objectContaining({ bundle_path: ".claude/skills/bmad-agent-analyst" }),
        arguments: { name: "bmad-agent-analyst" },
      },
    ]);
    const prompt = systemPrompt();
    expect(prompt).toContain("COMMUNICATION STYLE:\nCurious, then crisp.");
    expect(prompt).toContain("- We only ship on Tuesdays.");
    expect(prompt).toContain("1. Check {project-root}/_bmad-output/planning-artifacts for an open brief.");
    expect(prompt).toContain("1. BP — Brainstorm with a guide (skill: bmad-brainstorming)");
    expect(prompt).toContain("Greet Ada in English, then show the menu.");
    expect(prompt).toContain("AGENT START (already done by the system before this conversation)");
    expect(prompt).not.toContain("resolve_customization.py");
    expect(offeredTools()).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files", "load_skill", "run_script", "run_subagent"]);
  });

  it("stops a skill agent whose skill cannot be loaded with AGENT_INIT_FAILED naming the skill", async () => {
    const saved = runner.skills;
    runner.skills = {};
    try {
      const { final, events } = await runTestTurn(connection, prefix, "hi", { agentId: "bmm/skill-analyst" });
      expect(final).toMatchObject({ type: "error", error: { code: "AGENT_INIT_FAILED", message: expect.stringContaining("bmad-agent-analyst") } });
      expect(events.some((event) => event.type === "delta")).toBe(false);
    } finally {
      runner.skills = saved;
    }
  });
});
