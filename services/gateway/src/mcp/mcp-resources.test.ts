import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type Resource } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, tokens, type FixtureUser } from "../testing/gateway-fixture.js";
import { encodeCursor } from "./mcp-cursor.js";
import { resourceNotFoundCode, resourcePageSize } from "./mcp-resources.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);
const prd = "_bmad-output/planning-artifacts/prd.md";
const skill = ".claude/skills/bmad-prd/SKILL.md";
const clients: Client[] = [];

beforeAll(() => {
  orchestrator.answer();
  store.answer();
  orchestrator.addProject("team", "alice", { carol: "viewer" });
  orchestrator.addProject("big", "alice");
  orchestrator.addProject("bobs", "bob");
  store.put({ kind: "project", id: "team" }, prd, "# PRD: lighthouse app\n", { user: "alice", session_id: "chat-1", agent_id: "bmm/pm" });
  store.put({ kind: "project", id: "team" }, "data/numbers.csv", "a,b\n1,2\n", { user: "alice" });
  for (let index = 0; index < 150; index++) store.put({ kind: "project", id: "big" }, `notes/${String(index).padStart(3, "0")}.md`, `# ${index}\n`, { user: "alice" });
  store.put({ kind: "project", id: "bobs" }, "secret-plan.md", "# bob's\n", { user: "bob" });
  store.installed.set(skill, "---\nname: bmad-prd\n---\nWrite the PRD.\n");
  for (let index = 0; index < 59; index++) store.installed.set(`_bmad/bmm/steps/step-${String(index).padStart(2, "0")}.md`, `# step ${index}\n`);
});

afterAll(() => Promise.all(clients.map((client) => client.close())));

async function connect(user: FixtureUser): Promise<Client> {
  const client = new Client({ name: "resources-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${fixture.url()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens[user]}` } } }));
  clients.push(client);
  return client;
}

async function everyPage(client: Client): Promise<{ pages: number; resources: Resource[] }> {
  const resources: Resource[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    expect(page.resources.length).toBeLessThanOrEqual(resourcePageSize);
    resources.push(...page.resources);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { pages, resources };
}

/** The MCP error a read fails with. */
async function readError(client: Client, uri: string): Promise<McpError> {
  const error: unknown = await client.readResource({ uri }).then(() => undefined, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("MCP resources: the files of the caller's projects", () => {
  it("lists every file of every project the caller is a member of, then the installed files, once, in pages that follow the cursor", async () => {
    const { pages, resources } = await everyPage(await connect("alice"));
    expect(pages).toBe(3);
    expect(resources).toHaveLength(152 + 60);
    expect(new Set(resources.map((resource) => resource.uri)).size).toBe(152 + 60);
    expect(resources.findIndex((resource) => resource.uri.startsWith("bmad://install/"))).toBe(152);
    expect(resources).toContainEqual(expect.objectContaining({ uri: `bmad://project/team/${prd}`, name: prd, mimeType: "text/markdown", size: 22 }));
    expect(resources.some((resource) => resource.uri.startsWith("bmad://project/bobs/"))).toBe(false);
  });

  it("reads a file as text with the files API's content type", async () => {
    const client = await connect("alice");
    const { contents } = await client.readResource({ uri: `bmad://project/team/${prd}` });
    expect(contents).toEqual([{ uri: `bmad://project/team/${prd}`, mimeType: "text/markdown", text: "# PRD: lighthouse app\n" }]);
    const csv = await client.readResource({ uri: "bmad://project/team/data/numbers.csv" });
    expect(csv.contents[0]).toMatchObject({ mimeType: "text/csv", text: "a,b\n1,2\n" });
  });

  it("lets a viewer read, as the files API does", async () => {
    const { contents } = await (await connect("carol")).readResource({ uri: `bmad://project/team/${prd}` });
    expect(contents[0]).toMatchObject({ text: "# PRD: lighthouse app\n" });
  });

  it("answers a non-member's read exactly as a missing file: Resource not found", async () => {
    const bob = await connect("bob");
    const readsBefore = store.requests("read").length;
    const foreign = await readError(bob, `bmad://project/team/${prd}`);
    // the role is checked first: the file store is never asked
    expect(store.requests("read")).toHaveLength(readsBefore);
    const missing = await readError(bob, "bmad://project/bobs/no-such-file.md");
    const noProject = await readError(bob, `bmad://project/no-such-project/${prd}`);
    expect(foreign.code).toBe(resourceNotFoundCode);
    expect(foreign.message).toMatch(/Resource not found$/);
    for (const error of [missing, noProject]) expect({ code: error.code, message: error.message }).toEqual({ code: foreign.code, message: foreign.message });
  });

  it("answers a path that cannot be a project file, and another scheme, as not found too", async () => {
    const alice = await connect("alice");
    for (const uri of ["bmad://project/team/../bobs/secret-plan.md", "bmad://project/team/%2E%2E/x.md", "file:///etc/passwd"]) {
      expect((await readError(alice, uri)).code).toBe(resourceNotFoundCode);
    }
    // refused before the file store is asked
    expect(store.requests("read")).not.toContainEqual(expect.objectContaining({ path: expect.stringContaining("..") as unknown }));
  });

  it("refuses a cursor it did not make, and one that names a project the caller is not a member of", async () => {
    const alice = await connect("alice");
    const forged = [
      "not-a-cursor",
      encodeCursor({ project: "bobs", after: "" }),
      encodeCursor({ project: "team", after: 1 }),
      Buffer.from('{"__proto__":{"project":"team"},"after":""}').toString("base64url"),
      "x".repeat(5000),
    ];
    for (const cursor of forged) await expect(alice.listResources({ cursor })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect(store.requests("list")).not.toContainEqual({ space: { kind: "project", id: "bobs" } });
  });

  it("offers a template for any file of a project", async () => {
    const { resourceTemplates } = await (await connect("alice")).listResourceTemplates();
    expect(resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: "bmad://project/{project_id}/{+path}" }));
    expect(resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: "bmad://install/{+path}" }));
  });
});

describe("MCP resources: the installed BMAD files, read-only", () => {
  it("lists them for any signed-in user, a member of no project included, with their MIME type", async () => {
    const { resources } = await everyPage(await connect("dave"));
    expect(resources).toHaveLength(60);
    expect(resources[0]).toEqual({
      uri: "bmad://install/.claude/skills/bmad-prd/SKILL.md",
      name: skill,
      title: `BMAD install: ${skill}`,
      mimeType: "text/markdown",
      size: 38,
      annotations: { lastModified: "2026-01-01T00:00:00.000Z" },
    });
  });

  it("reads one as text", async () => {
    const { contents } = await (await connect("bob")).readResource({ uri: `bmad://install/${skill}` });
    expect(contents).toEqual([{ uri: `bmad://install/${skill}`, mimeType: "text/markdown", text: "---\nname: bmad-prd\n---\nWrite the PRD.\n" }]);
  });

  it("answers a protected name, a path with .. and a missing file as Resource not found (docs/security.md cases 246, 247)", async () => {
    const alice = await connect("alice");
    const readsBefore = store.requests("installed_read").length;
    for (const uri of ["bmad://install/_bmad/../.env", "bmad://install/_bmad/%2E%2E/.env", "bmad://install//etc/passwd", "bmad://install/"]) {
      expect((await readError(alice, uri)).code, uri).toBe(resourceNotFoundCode);
    }
    // refused before the tool-runner is asked
    expect(store.requests("installed_read")).toHaveLength(readsBefore);
    for (const uri of ["bmad://install/_bmad/bmm/.env", "bmad://install/_bmad/bmm/no-such.md"]) {
      const error = await readError(alice, uri);
      expect({ code: error.code, message: error.message }, uri).toEqual({ code: resourceNotFoundCode, message: expect.stringMatching(/Resource not found$/) as unknown });
    }
  });

  it("refuses an install cursor it did not make", async () => {
    const alice = await connect("alice");
    for (const cursor of [encodeCursor({ install: "yes", after: "" }), encodeCursor({ install: true, after: "x".repeat(1025) })]) {
      await expect(alice.listResources({ cursor })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    }
  });
});
