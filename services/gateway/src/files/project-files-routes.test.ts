import { request } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, tokens } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);
const project = { kind: "project", id: "team" } as const;
const prd = "_bmad-output/planning-artifacts/prd.md";

beforeAll(() => {
  orchestrator.answer();
  store.answer();
  orchestrator.addProject("team", "alice", { bob: "editor", carol: "viewer" });
  store.put(project, prd, "# PRD v1\n", { user: "alice", session_id: "chat-1", agent_id: "bmm/pm" });
  store.put(project, prd, "# PRD v2\n", { user: "bob", session_id: "chat-2", agent_id: "bmm/pm" });
  store.put(project, "docs/brief.md", "# Brief\n", { user: "alice" });
  orchestrator.addChat("chat-1", "team", "alice");
  store.put({ kind: "session", id: "chat-1" }, "memlog/notes.md", "scratch\n", { user: "alice", session_id: "chat-1" });
});

/** A GET whose path goes out as written: fetch would resolve `..` and `%2E%2E` segments before sending. */
function rawGet(path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(fixture.url());
    const outgoing = request({ hostname, port, path, headers: { authorization: `Bearer ${tokens.alice}` } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const failure = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

// in order, also under --sequence.shuffle: the delete-and-restore test adds revisions of docs/brief.md that
// the listing test, which reads the revisions as set up, would otherwise see
describe("a project's files", { shuffle: false }, () => {
  it("lists the latest revisions to any member, optionally under a prefix", async () => {
    const all = await json(await fixture.api("carol", "/api/projects/team/files"));
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ success: true, files: expect.any(Array), bytes: expect.any(Number), unservable_names: 0 });
    expect(all.body["files"].map((file: { path: string; revision: number }) => [file.path, file.revision])).toEqual([
      [prd, 2],
      ["docs/brief.md", 1],
    ]);
    const docs = await json(await fixture.api("carol", "/api/projects/team/files?prefix=docs/"));
    expect(docs.body["files"]).toEqual([expect.objectContaining({ path: "docs/brief.md", read_only: false })]);
    expect(store.requests("list").at(-1)).toEqual({ space: project, prefix: "docs/" });
  });

  it("reads the latest content as JSON, or the raw text with ?raw or Accept: text/plain", async () => {
    const latest = await json(await fixture.api("carol", `/api/projects/team/files/${prd}`));
    expect(latest).toEqual({ status: 200, body: { success: true, file: expect.objectContaining({ path: prd, revision: 2 }), content: "# PRD v2\n", truncated: false } });
    for (const [query, accept] of [["?raw", "*/*"], ["", "text/plain"]] as const) {
      const raw = await fixture.api("carol", `/api/projects/team/files/${prd}${query}`, { headers: { accept } });
      expect(raw.status).toBe(200);
      expect(raw.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(raw.headers.get("x-file-revision")).toBe("2");
      expect(raw.headers.get("content-security-policy")).toContain("sandbox");
      expect(await raw.text()).toBe("# PRD v2\n");
    }
  });

  it("reads an older revision with ?revision=N and lists the revisions with ?revisions", async () => {
    const old = await json(await fixture.api("carol", `/api/projects/team/files/${prd}?revision=1`));
    expect(old.body).toMatchObject({ file: { revision: 1, author: { user: "alice", session_id: "chat-1" } }, content: "# PRD v1\n" });
    const revisions = await json(await fixture.api("carol", `/api/projects/team/files/${prd}?revisions`));
    expect(revisions.body["revisions"].map((revision: { revision: number; author: { user: string } }) => [revision.revision, revision.author.user])).toEqual([
      [2, "bob"],
      [1, "alice"],
    ]);
    expect((await json(await fixture.api("carol", `/api/projects/team/files/${prd}?revision=0`))).body).toEqual(failure("VALIDATION_ERROR"));
    expect((await fixture.api("carol", `/api/projects/team/files/${prd}?revision=1&revisions`)).status).toBe(400);
  });

  it("lets an editor delete a file and restore an old revision, each as a new revision with the editor as author", async () => {
    const deleted = await json(await fixture.api("bob", "/api/projects/team/files/docs/brief.md", { method: "DELETE" }));
    expect(deleted).toEqual({ status: 200, body: { success: true, file: expect.objectContaining({ path: "docs/brief.md", revision: 2, deleted: true }) } });
    expect((await fixture.api("carol", "/api/projects/team/files/docs/brief.md")).status).toBe(404);
    const restored = await json(await fixture.api("bob", "/api/projects/team/files/docs/brief.md?restore=1", { method: "POST" }));
    expect(restored.body["file"]).toMatchObject({ revision: 3, author: { user: "bob" } });
    expect(store.requests("restore").at(-1)).toEqual({ space: project, path: "docs/brief.md", revision: 1, author: { user: "bob" } });
    expect((await json(await fixture.api("carol", "/api/projects/team/files/docs/brief.md"))).body["content"]).toBe("# Brief\n");
    expect((await fixture.api("bob", "/api/projects/team/files/docs/brief.md", { method: "POST" })).status).toBe(400);
  });

  it("stores an upload's body, any bytes, as a new file (201) or a new revision (200), through the uploads store", async () => {
    const created = await fixture.api("alice", "/api/projects/team/files/docs/notes.json", { method: "PUT", body: '{"a": 1}', headers: { "content-type": "application/json" } });
    expect(created.status).toBe(201);
    expect(store.requests("upload").at(-1)).toEqual({ space: project, path: "docs/notes.json", staged: expect.stringMatching(/^[0-9a-f]{32}$/), author: { user: "alice" } });
    expect(store.requests("stat").at(-1)).toEqual({ space: project, paths: ["docs/notes.json"], for_write: true });
    expect((await fixture.api("alice", "/api/projects/team/files/docs/notes.json", { method: "PUT", body: "{}" })).status).toBe(200);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
    expect((await fixture.api("alice", "/api/projects/team/files/docs/logo.png", { method: "PUT", body: png })).status).toBe(201);
    expect(Buffer.from(store.uploaded.get("project:team:docs/logo.png") ?? [])).toEqual(Buffer.from(png));
  });

  it("checks the path before it reads the body: a protected name is 400 and nothing is staged", async () => {
    const uploads = store.requests("upload").length;
    expect(await json(await fixture.api("alice", "/api/projects/team/files/config/.env", { method: "PUT", body: "SECRET=1" }))).toEqual({ status: 400, body: failure("INVALID_PATH") });
    for (const path of ["inputs/bell%07.md", "inputs/%1B%5B2J.md", `inputs/${"a".repeat(1100)}.md`]) {
      expect((await fixture.api("alice", `/api/projects/team/files/${path}`, { method: "PUT", body: "x" })).status, path).toBe(400);
    }
    expect(store.requests("upload").length).toBe(uploads);
  });

  it("refuses a viewer's writes (403) and answers a non-member 404 for everything, before the store is asked", async () => {
    const asked = store.received.length;
    for (const [method, path] of [["DELETE", prd], ["POST", `${prd}?restore=1`], ["PUT", "docs/x.md"]] as const) {
      expect(await json(await fixture.api("carol", `/api/projects/team/files/${path}`, { method, body: method === "PUT" ? "x" : undefined }))).toEqual({
        status: 403,
        body: failure("PROJECT_FORBIDDEN"),
      });
    }
    for (const path of ["/files", `/files/${prd}`, `/files/${prd}?revisions`]) {
      expect(await json(await fixture.api("dave", `/api/projects/team${path}`))).toEqual({ status: 404, body: failure("PROJECT_NOT_FOUND") });
    }
    expect((await fixture.api("dave", `/api/projects/team/files/${prd}`, { method: "DELETE" })).status).toBe(404);
    expect(store.received.length).toBe(asked);
  });

  it("refuses `..`, encoded or not, and empty segments with 400 INVALID_PATH", async () => {
    const asked = store.received.length;
    for (const path of ["docs/../../secret", "docs/%2E%2E/%2E%2E/secret", "docs%2F..%2F..%2Fsecret", "%2Fetc/passwd", "docs//brief.md", "a%5C..%5Cb"]) {
      expect(await rawGet(`/api/projects/team/files/${path}`), path).toEqual({ status: 400, body: failure("INVALID_PATH") });
    }
    expect(store.received.length).toBe(asked);
  });

  it("works on the caller's default project as `default`", async () => {
    const uploaded = await fixture.api("dave", "/api/projects/default/files/docs/idea.md", { method: "PUT", body: "idea" });
    expect(uploaded.status).toBe(201);
    expect(store.requests("upload").at(-1)).toMatchObject({ space: { kind: "project", id: FakeOrchestrator.defaultProjectOf("dave") } });
  });
});

describe("a chat's scratch files", () => {
  it("are listed and read by any member of the chat's project, from the chat's own space", async () => {
    const listed = await json(await fixture.api("carol", "/api/sessions/chat-1/files"));
    expect(listed.body).toEqual({ success: true, files: [expect.objectContaining({ path: "memlog/notes.md" })], bytes: 8, unservable_names: 0 });
    const read = await fixture.api("carol", "/api/sessions/chat-1/files/memlog/notes.md");
    expect([read.status, await read.text()]).toEqual([200, "scratch\n"]);
    expect(store.requests("read").at(-1)).toEqual({ space: { kind: "session", id: "chat-1" }, path: "memlog/notes.md" });
    expect(orchestrator.requests("agent.session.get").at(-1)).toEqual({ session_id: "chat-1", user: "carol" });
  });

  it("are answered 404 to a non-member, exactly like a missing chat", async () => {
    for (const path of ["/api/sessions/chat-1/files", "/api/sessions/chat-1/files/memlog/notes.md", "/api/sessions/nope/files"]) {
      expect(await json(await fixture.api("dave", path))).toEqual({ status: 404, body: failure("SESSION_NOT_FOUND") });
    }
  });
});
