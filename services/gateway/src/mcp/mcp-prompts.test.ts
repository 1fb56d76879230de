import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { GetAgentRequest, ListAgentsRequest, subjects, type AgentDefinition } from "@agent-orchestrator/shared/wire";
import { gatewayFixture, tokens } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();

function agent(id: string, name: string, menu: AgentDefinition["menu"]): AgentDefinition {
  return {
    id,
    name,
    title: "Product Manager",
    icon: "📋",
    description: "PRDs and epics",
    bundleName: "bmm",
    source: "module",
    persona: { role: "PM", identity: "", communication_style: "", principles: "" },
    criticalActions: [],
    menu,
    bundlePath: "_bmad/bmm",
    filePath: `_bmad/bmm/agents/${name}.md`,
  };
}

const john = agent("bmm/pm", "John", [
  { trigger: "PRD", description: "Create, update, or validate a PRD", skill: "bmad-prd" },
  { trigger: "*create-epics", description: "Create the epics", workflow: "{project-root}/_bmad/bmm/workflows/epics/workflow.yaml" },
  { trigger: "*help", description: "Show the menu" },
  { trigger: "*todo", description: "Not yet", workflow: "todo", todo: true },
]);
const mary = agent("bmm/analyst", "Mary", [{ trigger: "BP", description: "Brainstorm a project", skill: "bmad-brainstorming" }]);
const registry = { agents: [john] };
let client: Client;

beforeAll(async () => {
  fixture.respond(subjects.registryAgentsList, ListAgentsRequest, () => ({ success: true, agents: registry.agents.map(({ persona: _p, criticalActions: _c, menu: _m, bundlePath: _b, filePath: _f, ...summary }) => summary) }));
  fixture.respond(subjects.registryAgentsGet, GetAgentRequest, ({ agent_id }) => {
    const found = registry.agents.find((candidate) => candidate.id === agent_id);
    return found ? { success: true, agent: found } : { success: false, error: { code: "AGENT_NOT_FOUND", message: `No agent ${agent_id}` } };
  });
  client = new Client({ name: "prompts-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${fixture.url()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.alice}` } } }));
});

afterAll(() => client?.close());

const promptText = (result: Awaited<ReturnType<Client["getPrompt"]>>) => result.messages.map((message) => (message.content.type === "text" ? message.content.text : "")).join("\n");

describe("MCP prompts: the agents and their workflows", () => {
  it("offers each agent by its id and each menu item that runs a workflow as <agent>:<code>, described by who does what", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(["bmm/pm", "bmm/pm:PRD", "bmm/pm:create-epics"]);
    const prd = prompts.find((prompt) => prompt.name === "bmm/pm:PRD");
    expect(prd).toMatchObject({ description: "John: create, update, or validate a PRD" });
    expect(prd?.arguments?.map((argument) => [argument.name, argument.required])).toEqual([
      ["message", false],
      ["project_id", false],
    ]);
  });

  it("gets a workflow's prompt: a user message asking to call chat with the agent and its menu code, the request and the project", async () => {
    const result = await client.getPrompt({ name: "bmm/pm:PRD", arguments: { message: "a PRD for a lighthouse app", project_id: "team" } });
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]?.role).toBe("user");
    const text = promptText(result);
    expect(text).toContain("`chat` tool");
    expect(text).toContain('{"agent_id":"bmm/pm","message":"PRD a PRD for a lighthouse app","project_id":"team"}');
    expect(text).toContain("- agent_id: bmm/pm\n- message: PRD a PRD for a lighthouse app\n- project_id: team");
  });

  it("takes a blank argument, as clients send for a field left empty, as none", async () => {
    const text = promptText(await client.getPrompt({ name: "bmm/pm:create-epics", arguments: { message: "", project_id: "" } }));
    expect(text).toContain('{"agent_id":"bmm/pm","message":"*create-epics"}');
  });

  it("gets an agent's prompt: start a chat with it", async () => {
    const text = promptText(await client.getPrompt({ name: "bmm/pm", arguments: { message: "hi John" } }));
    expect(text).toContain('{"agent_id":"bmm/pm","message":"hi John"}');
  });

  it("refuses an unknown prompt, a menu item that runs no workflow and a project id that cannot be one as invalid params", async () => {
    for (const [name, args] of [["bmm/nobody:PRD", {}], ["bmm/pm:help", {}], ["bmm/pm:PRD", { project_id: "../x" }]] as const) {
      await expect(client.getPrompt({ name, arguments: args })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    }
  });

  it("shows the registry's new agents once it announces a change", async () => {
    registry.agents = [john, mary];
    fixture.connection().publish(fixture.prefix + subjects.registryChanged, encodeJson({ instance: "r1", revision: 2, changedAt: new Date().toISOString(), added: ["bmm/analyst"], removed: [], updated: [], bundles: ["bmm"] }));
    await fixture.connection().flush();
    await expect.poll(async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain("bmm/analyst:BP");
  });
});
