import type { AuditRecord } from "@agent-orchestrator/shared/wire";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture } from "../testing/gateway-fixture.js";
import { multipartBody as multipart, stagedUploads } from "../testing/upload-bodies.js";

// A file too large to attach inline goes into the chat's own scratch space first (docs/uploads.md "A large file for a chat").
const fixture = gatewayFixture({ UPLOAD_MAX_BYTES: "4096", UPLOAD_MAX_FILES: "3" });
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);

beforeAll(() => {
  orchestrator.answer();
  store.answer();
  orchestrator.addProject("repo", "alice", { bob: "editor", carol: "viewer" });
  orchestrator.addProject("other", "alice");
  orchestrator.addChat("bobs-chat", "repo", "bob");
  orchestrator.addChat("alices-chat", "repo", "alice");
  orchestrator.addChat("carols-chat", "repo", "carol");
  orchestrator.addChat("other-chat", "other", "alice");
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const failure = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });
const text = (key: string) => new TextDecoder().decode(store.uploaded.get(key));

const staged = () => stagedUploads(fixture);

describe("uploads into a chat's scratch space", () => {
  it("stores a raw body in the chat's own space, never the project's, with the uploader as author", async () => {
    const put = await json(await fixture.api("bob", "/api/sessions/bobs-chat/files/inputs/big.md", { method: "PUT", body: "# Big\n" }));
    expect(put).toMatchObject({ status: 201, body: { success: true, file: { path: "inputs/big.md", revision: 1, author: { user: "bob" } } } });
    expect(text("session:bobs-chat:inputs/big.md")).toBe("# Big\n");
    expect(store.uploaded.has("project:repo:inputs/big.md")).toBe(false);
    expect(store.requests("upload").at(-1)).toMatchObject({ space: { kind: "session", id: "bobs-chat" }, path: "inputs/big.md" });
    const again = await fixture.api("bob", "/api/sessions/bobs-chat/files/inputs/big.md", { method: "PUT", body: "# Bigger\n" });
    expect(again.status).toBe(200);
    // the chat's files list it, as for the files the chat wrote itself
    const listed = await json(await fixture.api("bob", "/api/sessions/bobs-chat/files"));
    expect(listed.body["files"]).toEqual([expect.objectContaining({ path: "inputs/big.md", revision: 2 })]);
    // audited in the chat's project, naming the chat
    const uploaded = await vi.waitFor(
      async () => {
        const records = (await json(await fixture.api("alice", "/api/projects/repo/audit?limit=500"))).body["records"] as AuditRecord[];
        const found = records.filter((record) => record.action === "file_uploaded" && record.target === "inputs/big.md");
        expect(found).toHaveLength(2);
        return found;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(uploaded[0]).toMatchObject({ actor: "bob", project_id: "repo", outcome: "ok", detail: "chat bobs-chat" });
  });

  it("takes several files of a multipart body into the folder asked for", async () => {
    const { body, type } = multipart([{ name: "a.md", content: "A" }, { name: "notes/b.md", content: "B" }]);
    const response = await json(await fixture.api("bob", "/api/sessions/bobs-chat/files?folder=inputs", { method: "POST", body, headers: { "content-type": type } }));
    expect(response.status).toBe(201);
    expect(response.body["files"].map((stored: { file: { path: string } }) => stored.file.path)).toEqual(["inputs/a.md", "inputs/notes/b.md"]);
    expect(text("session:bobs-chat:inputs/notes/b.md")).toBe("B");
  });

  it("refuses `..`, encoded or not, a protected name and a bad folder before the body is read, and a body past UPLOAD_MAX_BYTES (case 362)", async () => {
    const before = store.requests("upload").length;
    // the tool-runner's verdict on a protected name comes before the body too (its own rules: paths/protected-names.ts)
    for (const path of ["inputs/..%2F..%2Fx.md", "inputs%2F..%2F..%2Fx.md", "..%2Finputs/x.md", "inputs/.env"]) {
      const response = await fixture.api("bob", `/api/sessions/bobs-chat/files/${path}`, { method: "PUT", body: "x" });
      expect({ path, ...(await json(response)) }).toEqual({ path, status: 400, body: failure("INVALID_PATH") });
    }
    const { body, type } = multipart([{ name: "x.md", content: "x" }]);
    const folder = await fixture.api("bob", "/api/sessions/bobs-chat/files?folder=..", { method: "POST", body, headers: { "content-type": type } });
    expect(folder.status).toBe(400);
    const huge = await fixture.api("bob", "/api/sessions/bobs-chat/files/inputs/huge.bin", { method: "PUT", body: Buffer.alloc(5000, 1) });
    expect(await json(huge)).toEqual({ status: 413, body: failure("PAYLOAD_TOO_LARGE") });
    expect(store.requests("upload").length).toBe(before);
    expect(await staged()).toBe(0);
  });

  it("lets only the chat's owner upload, as an editor or the owner of its project: a viewer 403, another member's chat 403, a non-member 404 (cases 363, 364)", async () => {
    const asked = store.received.length;
    const { body, type } = multipart([{ name: "x.md", content: "x" }]);
    // carol started the chat as an editor and is a viewer now
    expect(await json(await fixture.api("carol", "/api/sessions/carols-chat/files/x.md", { method: "PUT", body: "x" }))).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    expect((await fixture.api("carol", "/api/sessions/carols-chat/files", { method: "POST", body, headers: { "content-type": type } })).status).toBe(403);
    expect(await json(await fixture.api("bob", "/api/sessions/alices-chat/files/x.md", { method: "PUT", body: "x" }))).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    for (const [user, chat] of [["dave", "bobs-chat"], ["bob", "other-chat"], ["bob", "no-such-chat"]] as const) {
      expect({ user, chat, ...(await json(await fixture.api(user, `/api/sessions/${chat}/files/x.md`, { method: "PUT", body: "x" }))) }).toEqual({ user, chat, status: 404, body: failure("SESSION_NOT_FOUND") });
    }
    expect(store.received.length).toBe(asked);
    expect(await staged()).toBe(0);
  });
});
