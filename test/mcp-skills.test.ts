/**
 * The MCP `bmad` tool on skills (docs/design.md "Activation documents"), through the official SDK client,
 * against a temp copy of a real BMAD 6.12.0 install: `execute` of a skill by name, or of an agent's menu
 * item that runs one, returns the registry's skill document in one call, with the SKILL.md instructions
 * resolved for a model that works in the project folder and the user's request in it. Real processes, a
 * private nats-server, the scripted model (never called here).
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const token = "alice-token-1111";
let system: TestSystem;
let project: string;
let client: Client;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "mcp-skills-6.12-"));
  await cp(await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" }), project, { recursive: true });
  system = await startTestSystem({ responder: () => ({ text: "unused" }), env: { AUTH_TOKENS: `alice:${token}`, HOST: "127.0.0.1", BMAD_ROOT: project } });
  client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${system.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
}, 240_000);

afterAll(async () => {
  await client?.close();
  await system?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

type CallResult = Awaited<ReturnType<Client["callTool"]>>;
const structured = (result: CallResult) => result.structuredContent as { success: boolean; data: Record<string, any>; text: string };
const text = (result: CallResult) => (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? "").join("\n");

describe("bmad on skills", () => {
  it("executes a skill by name: data.type skill, the resolved instructions and the user's request in one call", async () => {
    const result = await client.callTool({ name: "bmad", arguments: { operation: "execute", workflow: "bmad-prd", user_context: "a PRD for a lighthouse app" } });
    expect(result.isError).toBeFalsy();
    const { data } = structured(result);
    expect(data).toMatchObject({ type: "skill", name: "bmad-prd", module: "bmm", kind: "workflow", path: ".claude/skills/bmad-prd", userContext: "a PRD for a lighthouse app" });
    expect(data["files"]).toContain(".claude/skills/bmad-prd/assets/prd-template.md");
    expect(text(result)).toContain("## INSTRUCTIONS");
    expect(text(result)).toContain(".claude/skills/bmad-prd/assets/prd-template.md");
    expect(text(result)).not.toContain("{skill-root}");
    expect(text(result)).toContain("## USER REQUEST\n\n> a PRD for a lighthouse app");
  });

  it("executes an agent's menu item that runs a skill as that skill's document", async () => {
    const result = await client.callTool({ name: "bmad", arguments: { operation: "execute", agent: "bmm/pm", workflow: "PRD", user_context: "update our PRD" } });
    expect(structured(result).data).toMatchObject({ type: "skill", name: "bmad-prd", userContext: "update our PRD" });
  });

  it("reads a skill without a request, and says NOT_FOUND for a name that is neither a skill nor a menu item", async () => {
    const read = await client.callTool({ name: "bmad", arguments: { operation: "read", workflow: "bmad-prd" } });
    expect(structured(read).data).toMatchObject({ type: "skill", name: "bmad-prd" });
    expect(structured(read).data).not.toHaveProperty("userContext");
    const unknown = await client.callTool({ name: "bmad", arguments: { operation: "execute", workflow: "bmad-no-such-skill" } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/^NOT_FOUND: No workflow named bmad-no-such-skill/);
  });
});
