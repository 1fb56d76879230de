/**
 * The whole system against real BMAD installs made by the official installer (`npx bmad-method@<v> install`,
 * cached by test/support/bmad-install.ts), one system per release and tool target: every agent the install
 * ships is listed with a stable id, every one starts, the analyst starts with the install's user name and
 * config, a workflow starts the way that release runs workflows (a skill, a workflow file, a 4.x task), and
 * no tool result or answer shows a host path. Nothing of BMAD is kept in this repository.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultInstallUserName, ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { releaseMatrix, shippedAgentIds } from "@agent-orchestrator/testing/bmad-release";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

interface MenuItem {
  trigger: string;
  workflow?: string;
  exec?: string;
  skill?: string;
}

interface ToolMessage {
  name: string;
  result: Record<string, unknown>;
}

/**
 * The scripted model's side of these tests. The user message says what to do: `hello`, `load-skill <name>`,
 * `read <path>`, `preload <path>`, `script <command line>`, `report <path> <key>` (read the file, answer its
 * `key:` line) or `delegate <task>` (hand the task to a subagent). After a load_skill that worked it reads one
 * of the skill's own files; after any other tool result it answers with what it saw.
 */
function releaseResponder(request: ChatRequestBody): ScriptedTurn {
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  const [verb = "", argument = ""] = said.split(/ (.*)/s, 2);
  const tool = lastToolMessage(request);
  if (!tool) {
    if (verb === "load-skill") return { toolCalls: [{ name: "load_skill", arguments: { name: argument } }] };
    if (verb === "read") return { toolCalls: [{ name: "read_file", arguments: { file_path: argument } }] };
    if (verb === "report") return { toolCalls: [{ name: "read_file", arguments: { file_path: argument.split(" ")[0] ?? "" } }] };
    if (verb === "preload") return { toolCalls: [{ name: "preload_workflow", arguments: { workflow_path: argument } }] };
    if (verb === "script") return { toolCalls: [{ name: "run_script", arguments: { command: argument } }] };
    if (verb === "delegate") return { toolCalls: [{ name: "run_subagent", arguments: { prompt: argument } }] };
    return { text: "Hello" };
  }
  if (tool.name === "load_skill" && tool.result["success"] === true) {
    const files = (tool.result["files"] as string[] | undefined) ?? [];
    const next = files.find((file) => /\/(references|steps|steps-c|data)\//.test(file)) ?? files.find((file) => file.endsWith(".md"));
    if (next) return { toolCalls: [{ name: "read_file", arguments: { file_path: next } }] };
  }
  if (verb === "report" && tool.result["success"] === true) {
    const key = argument.split(" ")[1] ?? "";
    return { text: String(tool.result["content"]).split("\n").find((line) => line.startsWith(`${key}:`)) ?? `no ${key}` };
  }
  const outcome = tool.result["success"] === true ? "ok" : JSON.stringify(tool.result["error"]);
  return { text: `${tool.name}: ${outcome}${typeof tool.result["response"] === "string" ? ` (${tool.result["response"]})` : ""}` };
}

function lastToolMessage(request: ChatRequestBody): ToolMessage | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== "tool") return undefined;
  const calls = request.messages.flatMap((message) => (message.tool_calls as Array<{ id: string; function: { name: string } }> | undefined) ?? []);
  const name = calls.find((call) => call.id === last.tool_call_id)?.function.name ?? "";
  return { name, result: JSON.parse(String(last.content)) as Record<string, unknown> };
}

async function getJson<T>(system: TestSystem, path: string): Promise<T> {
  const response = await fetch(`${system.url}${path}`);
  return (await response.json()) as T;
}

async function chat(
  system: TestSystem,
  agentId: string,
  message: string,
): Promise<{ success: boolean; session_id?: string; response?: string; error?: unknown }> {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_id: agentId, message }),
  });
  return (await response.json()) as { success: boolean; session_id?: string; response?: string; error?: unknown };
}

/** The message a release's first runnable menu item turns into, or undefined when its menu has none. */
function workflowStart(menu: readonly MenuItem[]): string | undefined {
  for (const item of menu) {
    if (item.skill) return `load-skill ${item.skill}`;
    if (item.workflow?.endsWith(".yaml")) return `preload ${item.workflow}`;
    if (item.workflow?.endsWith(".md")) return `read ${item.workflow}`;
  }
  return undefined;
}

/** BMAD's shared memlog.py ships from 6.10 on, with the skills that ask for subagents. */
function hasMemlog(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 6 || (major === 6 && minor >= 10);
}

function systemPromptOfLastTurn(system: TestSystem): string {
  return String(system.model.requests.at(-1)?.body.messages[0]?.content ?? "");
}

describe.each(releaseMatrix)("BMAD $version installed for $tool", ({ version, tool }) => {
  let system: TestSystem;
  let root: string;
  let shipped: string[];

  beforeAll(async () => {
    root = await ensureBmadInstall({ version, tool });
    shipped = await shippedAgentIds(root, tool);
    system = await startTestSystem({ responder: releaseResponder, env: { BMAD_ROOT: root } });
  }, 240_000);

  afterAll(() => system?.stop());

  it("lists every agent the install ships, with stable ids, and reports no broken module", async () => {
    const { agents } = await getJson<{ agents: Array<{ id: string; name: string; source: string }> }>(system, "/api/agents");
    expect(agents.map((agent) => agent.id).sort()).toEqual(shipped);
    expect(agents.find((agent) => agent.id === "bmm/analyst")?.name).toBe("Mary");
    const { bundles } = await getJson<{ bundles: Array<{ name: string; status: string; warnings: unknown[] }> }>(system, "/api/bundles");
    expect(bundles.filter((bundle) => bundle.status !== "ok")).toEqual([]);
  });

  it("starts every shipped agent", async () => {
    for (const id of shipped) {
      const answer = await chat(system, id, "hello");
      expect({ id, ...answer }).toMatchObject({ id, success: true, response: "Hello" });
    }
  });

  it("starts the analyst with the install's own config", async () => {
    expect(await chat(system, "bmm/analyst", "hello")).toMatchObject({ success: true });
    const prompt = systemPromptOfLastTurn(system);
    expect(prompt).toContain("Mary");
    if (version.startsWith("4.")) expect(prompt).toContain("devStoryLocation");
    else expect(prompt).toContain(defaultInstallUserName);
  });

  it("starts a workflow the way this release runs them", async () => {
    const { agent } = await getJson<{ agent: { menu: MenuItem[] } }>(system, "/api/agents/bmm/analyst");
    const start = version.startsWith("4.") ? "read .bmad-core/tasks/create-doc.md" : workflowStart(agent.menu);
    expect(start).toBeDefined();
    const answer = await chat(system, "bmm/analyst", start!);
    expect(answer.success).toBe(true);
    expect(answer.response).not.toContain("error");
    expect(answer.response).toMatch(/: ok$/);
  });

  // declared only where the release ships what they use, so no release reports them as skipped
  if (hasMemlog(version)) {
    it("runs BMAD's memlog script in the sandbox: the run log lands in the chat's {session-folder}", async () => {
      const command = 'uv run {project-root}/_bmad/scripts/memlog.py init --workspace {session-folder}/prd-run --field topic="Release test"';
      const answer = await chat(system, "bmm/pm", `script ${command}`);
      expect(answer).toMatchObject({ success: true, response: "run_script: ok" });
      const log = await fetch(`${system.url}/api/sessions/${answer.session_id ?? ""}/files/prd-run/.memlog.md`);
      expect(log.status).toBe(200);
      expect(await log.text()).toContain("Release test");
    });

    it("hands a task to a subagent, whose own tool result comes back in the parent's answer", async () => {
      const answer = await chat(system, "bmm/analyst", "delegate report {project-root}/_bmad/bmm/config.yaml user_name");
      expect(answer).toMatchObject({ success: true, response: `run_subagent: ok (user_name: ${defaultInstallUserName})` });
    });
  }

  it("shows no host path to the model or the client", () => {
    const seen = JSON.stringify(system.model.requests.map((request) => request.body.messages.slice(1)));
    expect(seen).not.toContain(root);
    expect(seen).not.toContain(String(system.env["OUTPUT_ROOT"]));
  });
});
