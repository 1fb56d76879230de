/**
 * MCP prompts and resources on /mcp (docs/openai-api.md "Prompts", "Resources") through the official SDK
 * client, against a temp copy of a real BMAD 6.12.0 install: John's PRD prompt is listed, got, and run through
 * this server's `chat` as a client's model would; the PRD his turn wrote is a resource of the project, read as
 * Markdown; another user's read of it is "Resource not found". Real processes, a private nats-server, the
 * scripted model.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const alice = "alice-token-1111";
const bob = "bob-token-22222";
const prdPath = "docs/prd.md";
let system: TestSystem;
let install: string;
const clients: Client[] = [];

/** John: the PRD menu code with a request writes the PRD into the project. */
function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  if (last?.role === "tool") return { text: "I wrote the PRD." };
  const said = withoutSystemNote(String(last?.content ?? ""));
  if (said.startsWith("PRD ")) return { toolCalls: [{ name: "save_output", arguments: { file_path: `{project-root}/${prdPath}`, content: `# PRD\n\n${said.slice(4)}\n` } }] };
  return { text: `echo: ${said}` };
}

beforeAll(async () => {
  install = await mkdtemp(join(tmpdir(), "mcp-prompts-6.12-"));
  await cp(await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" }), install, { recursive: true });
  // a secret left in the install: never a resource (docs/security.md case 247)
  await writeFile(join(install, "_bmad/bmm/.env"), "API_KEY=install-secret\n");
  system = await startTestSystem({ responder: respond, env: { AUTH_TOKENS: `alice:${alice},bob:${bob}`, HOST: "127.0.0.1", BMAD_ROOT: install } });
}, 240_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await system?.stop();
  if (install) await rm(install, { recursive: true, force: true });
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${system.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** What a client's model does with the prompt: call `chat` with the arguments it names (the JSON line). */
function chatArguments(text: string): Record<string, unknown> {
  const json = /^As JSON: (.+)$/m.exec(text)?.[1];
  if (json === undefined) throw new Error(`no chat arguments in the prompt:\n${text}`);
  return JSON.parse(json) as Record<string, unknown>;
}

describe("John's PRD as an MCP prompt and the PRD as a resource", () => {
  it("lists the agents and their workflows as prompts, gets John's PRD prompt, runs it through chat, and reads the PRD he wrote as a resource", async () => {
    const client = await connect(alice);
    const { prompts } = await client.listPrompts();
    expect(prompts).toContainEqual(expect.objectContaining({ name: "bmm/pm", description: expect.stringContaining("John") }));
    const prd = prompts.find((prompt) => prompt.name === "bmm/pm:PRD");
    expect(prd?.description).toMatch(/^John: create, update, or validate a PRD/);

    const got = await client.getPrompt({ name: "bmm/pm:PRD", arguments: { message: "a lighthouse tour app" } });
    const text = got.messages.map((message) => (message.content.type === "text" ? message.content.text : "")).join("\n");
    expect(text).toContain("agent_id: bmm/pm");
    const args = chatArguments(text);
    expect(args).toEqual({ agent_id: "bmm/pm", message: "PRD a lighthouse tour app" });

    const result = await client.callTool({ name: "chat", arguments: args });
    expect(result.isError).toBeFalsy();
    const { project_id: projectId, response } = result.structuredContent as { project_id: string; response: string };
    expect(response).toBe("I wrote the PRD.");

    const { resources } = await client.listResources();
    const uri = `bmad://project/${projectId}/${prdPath}`;
    expect(resources).toContainEqual(expect.objectContaining({ uri, name: prdPath, mimeType: "text/markdown" }));
    const { contents } = await client.readResource({ uri });
    expect(contents).toEqual([{ uri, mimeType: "text/markdown", text: "# PRD\n\na lighthouse tour app\n" }]);

    // another user: the project is not in their list, and reading the PRD fails as a file that does not exist
    const other = await connect(bob);
    expect((await other.listResources()).resources.map((resource) => resource.uri)).not.toContain(uri);
    await expect(other.readResource({ uri })).rejects.toMatchObject({ code: -32002, message: expect.stringMatching(/Resource not found$/) });
    await expect(other.readResource({ uri: `bmad://project/${projectId}/docs/no-such.md` })).rejects.toMatchObject({ code: -32002 });
  });
});

describe("the installed BMAD files as resources", () => {
  it("lists John's installed SKILL.md among them and reads it as Markdown; a protected name or a path with .. is Resource not found", async () => {
    const client = await connect(bob);
    const listed = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      listed.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const skill = ".claude/skills/bmad-agent-pm/SKILL.md";
    const uri = `bmad://install/${skill}`;
    expect(listed).toContainEqual(expect.objectContaining({ uri, name: skill, mimeType: "text/markdown" }));
    expect(listed).toContainEqual(expect.objectContaining({ uri: "bmad://install/_bmad/bmm/config.yaml", mimeType: "text/yaml" }));
    expect(listed.filter((resource) => resource.uri.includes(".env"))).toEqual([]);

    const { contents } = await client.readResource({ uri });
    expect(contents).toEqual([{ uri, mimeType: "text/markdown", text: await readFile(join(install, skill), "utf8") }]);
    expect((await client.listResourceTemplates()).resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: "bmad://install/{+path}" }));

    for (const denied of ["bmad://install/_bmad/bmm/.env", "bmad://install/_bmad/bmm/../bmm/.env", "bmad://install/_bmad/%2E%2E/_bmad/bmm/config.yaml", "bmad://install/docs/prd.md"]) {
      await expect(client.readResource({ uri: denied }), denied).rejects.toMatchObject({ code: -32002, message: expect.stringMatching(/Resource not found$/) });
    }
  });
});
