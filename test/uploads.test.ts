/**
 * A project's inputs and outputs through the whole system (docs/uploads.md), on a real BMAD 6.12 install and
 * the scripted model: a PDF and a DOCX uploaded are listed with their Markdown forms, which the model reads by
 * path; a code base's archive becomes a read-only tree the agent lists, finds, searches and reads (its `.env`
 * never stored, a write into it refused); hostile archives are refused with nothing stored; the exported zip
 * holds exactly the project's files, and importing it into a new project reproduces them.
 */
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import yauzl from "yauzl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { buildDocx, docxParagraph, docxTable, buildPdf, hostileArchives as archives } from "@agent-orchestrator/tool-runner/testing";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const token = "alice-token";
let system: TestSystem;
let project: string;
let dir: string;

async function api(method: string, route: string, body?: string | Uint8Array, type?: string): Promise<Response> {
  return fetch(`${system.url}${route}`, { method, headers: { authorization: `Bearer ${token}`, ...(type ? { "content-type": type } : {}) }, ...(body === undefined ? {} : { body }) });
}
const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });

/** One turn of the analyst that makes one tool call; the tool's result as the model saw it. */
async function tool(name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await json(await api("POST", "/api/chat", JSON.stringify({ agent_id: "bmm/analyst", project_id: project, message: `call ${name}\n${JSON.stringify(args)}` }), "application/json"));
  expect(reply.body["success"]).toBe(true);
  return JSON.parse(reply.body["response"] as string) as Record<string, any>;
}

async function newProject(name: string): Promise<string> {
  return (await json(await api("POST", "/api/projects", JSON.stringify({ name }), "application/json"))).body["project"].id as string;
}

/** Every entry of a zip: its path and the sha256 of its bytes. */
function zipEntries(bytes: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, string>();
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      zip.on("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (openError, stream) => {
          if (openError) return reject(openError);
          const hash = createHash("sha256");
          stream.on("data", (chunk: Buffer) => hash.update(chunk));
          stream.on("end", () => {
            entries.set(entry.fileName, hash.digest("hex"));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(entries));
      zip.readEntry();
    });
  });
}

async function listing(id: string, query = ""): Promise<Array<Record<string, any>>> {
  return (await json(await api("GET", `/api/projects/${id}/files${query}`))).body["files"] as Array<Record<string, any>>;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ao-uploads-e2e-"));
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root, AUTH_TOKENS: `alice:${token}` } });
  project = await newProject("Lighthouse");
}, 240_000);

afterAll(async () => {
  await system?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("inputs and outputs of a project", { shuffle: false }, () => {
  it("lists an uploaded PDF and DOCX with their Markdown forms, which the model reads by path", async () => {
    const pdf = buildPdf({ pages: [["Lighthouse research", "Keepers want remote alerts."], ["Page two: storms at night."]] });
    const docx = await buildDocx({ body: docxParagraph("Interview notes", { style: "Heading1" }) + docxTable([["Who", "Said"], ["Ada", "Fog is the enemy"]]) });
    const uploadedPdf = await json(await api("PUT", `/api/projects/${project}/files/inputs/research.pdf`, pdf));
    expect(uploadedPdf).toMatchObject({ status: 201, body: { file: { path: "inputs/research.pdf", conversion: { markdown_path: "inputs/research.pdf.md" } }, markdown: { path: "inputs/research.pdf.md", converted_from: "inputs/research.pdf" } } });
    expect((await api("PUT", `/api/projects/${project}/files/inputs/interviews.docx`, docx)).status).toBe(201);
    const broken = await json(await api("PUT", `/api/projects/${project}/files/inputs/broken.pdf`, "not a pdf at all"));
    expect(broken.body["file"]["conversion"]).toEqual({ error: expect.stringMatching(/not a PDF/) });

    const paths = (await listing(project, "?prefix=inputs")).map((file) => file.path);
    expect(paths).toEqual(["inputs/broken.pdf", "inputs/interviews.docx", "inputs/interviews.docx.md", "inputs/research.pdf", "inputs/research.pdf.md"]);

    const markdown = await tool("read_file", { file_path: "{project-root}/inputs/research.pdf.md" });
    expect(markdown).toMatchObject({ success: true, converted_from: "{project-root}/inputs/research.pdf" });
    expect(markdown["content"]).toContain("Keepers want remote alerts.");
    expect(markdown["content"]).toContain("storms at night");
    const table = await tool("read_file", { file_path: "{project-root}/inputs/interviews.docx.md" });
    expect(table["content"]).toMatch(/# Interview notes/);
    expect(table["content"]).toMatch(/\| Ada \| Fog is the enemy \|/);
    // the bytes come back as uploaded, as a download the browser saves, never renders
    const download = await api("GET", `/api/projects/${project}/files/inputs/research.pdf?download`);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("content-disposition")).toContain('filename="research.pdf"');
    expect(Buffer.from(await download.arrayBuffer())).toEqual(Buffer.from(pdf));
    const original = await tool("read_file", { file_path: "{project-root}/inputs/research.pdf" });
    expect(original).toMatchObject({ success: false, error: { code: "BINARY_FILE", message: expect.stringContaining("{project-root}/inputs/research.pdf.md") } });
  });

  it("makes a code base's archive a read-only tree the agent lists, finds, searches and reads", async () => {
    const taken = await json(await api("POST", `/api/projects/${project}/source`, await readFile(await archives.writeCodeBaseZip(dir)), "application/zip"));
    expect(taken).toMatchObject({ status: 201, body: { source: { revision: 1, files: 6, uploaded_by: "alice" }, skipped: [{ path: ".env" }] } });

    expect((await tool("list_files", { path: "{project-root}/src" }))["entries"]).toEqual([
      { name: "index.ts", type: "file", size: expect.any(Number), read_only: true },
      { name: "lib", type: "directory", size: 0 },
    ]);
    expect((await tool("read_file", { file_path: "{project-root}/src/lib/deep/nested/util.ts" }))["content"]).toContain("return 2 * x;");
    const found = await tool("find_files", { pattern: "**/*.ts" });
    expect(found["files"].map((file: { path: string }) => file.path).sort()).toEqual(["{project-root}/src/index.ts", "{project-root}/src/lib/deep/nested/util.ts"]);
    expect((await tool("search_files", { pattern: "answer = 42", literal: true }))["hits"]).toEqual(["{project-root}/src/index.ts:1: export const answer = 42;"]);

    expect((await tool("read_file", { file_path: "{project-root}/.env" }))["success"]).toBe(false);
    const write = await tool("save_output", { file_path: "{project-root}/src/index.ts", content: "pwned" });
    expect(write).toMatchObject({ success: false, error: { code: "PROTECTED_PATH", message: expect.stringMatching(/read-only code snapshot/) } });
    expect((await tool("save_output", { file_path: "{project-root}/src/new.ts", content: "x" }))["success"]).toBe(false);
    expect((await api("PUT", `/api/projects/${project}/files/src/index.ts`, "pwned")).status).toBe(403);

    const withSource = await listing(project, "?source=1&prefix=src");
    expect(withSource.map((file) => [file.path, file.read_only])).toEqual([
      ["src/index.ts", true],
      ["src/lib/deep/nested/util.ts", true],
    ]);
  });

  it("refuses every hostile archive with the reason and keeps the snapshot it had (docs/security.md cases 171–180, 217)", async () => {
    const hostile = [archives.zipSlip, archives.tarSlip, archives.zipSymlink, archives.tarHardLink, archives.tarCharDevice, archives.zipControlName, archives.zipBomb, archives.zipLyingSizes, archives.zipManyEntries, archives.tarManyEntries, archives.tarGzBomb, archives.zipCaseClash, archives.tarNormalisationClash];
    for (const make of hostile) {
      const file = await make(dir);
      const refused = await json(await api("POST", `/api/projects/${project}/source`, await readFile(file), "application/octet-stream"));
      expect(refused, path.basename(file)).toMatchObject({ status: 422, body: { success: false, error: { code: "ARCHIVE_REFUSED" } } });
      const imported = await json(await api("POST", `/api/projects/${project}/import`, await readFile(file), "application/zip"));
      expect(imported.status, path.basename(file)).toBe(422);
    }
    expect((await json(await api("GET", `/api/projects/${project}/source`))).body["source"]).toMatchObject({ revision: 1, files: 6 });
    expect((await listing(project)).map((file) => file.path).filter((name) => !name.startsWith("inputs/"))).toEqual([]);
  });

  it("exports exactly the project's files with their latest contents, and an import into a new project reproduces them", async () => {
    await tool("save_output", { file_path: "{planning_artifacts}/product-brief.md", content: "# Brief v1\n" });
    await tool("save_output", { file_path: "{planning_artifacts}/product-brief.md", content: "# Brief v2\n" });
    const own = await listing(project);
    const exported = await api("GET", `/api/projects/${project}/archive`);
    expect(exported.headers.get("content-type")).toBe("application/zip");
    expect(exported.headers.get("content-disposition")).toBe('attachment; filename="Lighthouse.zip"');
    const entries = await zipEntries(Buffer.from(await exported.arrayBuffer()));
    expect(entries).toEqual(new Map(own.map((file) => [file.path as string, file.sha256 as string])));
    expect(entries.has("_bmad-output/planning-artifacts/product-brief.md")).toBe(true);
    expect([...entries.keys()].some((name) => name.startsWith("src/") || name.startsWith("_bmad/"))).toBe(false);

    const withSource = await zipEntries(Buffer.from(await (await api("GET", `/api/projects/${project}/archive?source=1`)).arrayBuffer()));
    expect([...withSource.keys()].filter((name) => name.startsWith("src/")).sort()).toEqual(["src/index.ts", "src/lib/deep/nested/util.ts"]);

    const copy = await newProject("Lighthouse copy");
    const zip = Buffer.from(await (await api("GET", `/api/projects/${project}/archive`)).arrayBuffer());
    const imported = await json(await api("POST", `/api/projects/${copy}/import`, zip, "application/zip"));
    expect(imported).toEqual({ status: 200, body: { success: true, files: own.length, bytes: own.reduce((sum, file) => sum + (file.size as number), 0), skipped: [] } });
    const copied = await listing(copy);
    expect(copied.map((file) => [file.path, file.sha256, file.author.user])).toEqual(own.map((file) => [file.path, file.sha256, "alice"]));
  });

  it("did all of it within each service's NATS permissions: no violation logged", () => {
    const violations = system.processes.flatMap((service) => service.lines.filter((line) => line["msg"] === "NATS permission violation").map((line) => `${service.name}: ${JSON.stringify(line["permission"])}`));
    expect(violations).toEqual([]);
  });
});
