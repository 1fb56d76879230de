import { request } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, tokens } from "../testing/gateway-fixture.js";
import { multipartBody as multipart, stagedUploads } from "../testing/upload-bodies.js";

// Uploads stream into the uploads store and stop at UPLOAD_MAX_BYTES with nothing kept (docs/uploads.md).
const fixture = gatewayFixture({ UPLOAD_MAX_BYTES: "4096", UPLOAD_MAX_FILES: "3" });
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);

beforeAll(() => {
  orchestrator.answer();
  store.answer();
  orchestrator.addProject("team", "alice", { bob: "editor", carol: "viewer" });
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const failure = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

const staged = () => stagedUploads(fixture);

/** A PUT whose body is sent in chunks with no Content-Length, as a client streaming a file of unknown size does. */
function chunkedPut(path: string, chunks: Buffer[]): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(fixture.url());
    const outgoing = request({ hostname, port, path, method: "PUT", headers: { authorization: `Bearer ${tokens.alice}`, "transfer-encoding": "chunked" } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    // the server may answer and close before the whole body is sent
    outgoing.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    for (const chunk of chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

describe("uploads into a project", () => {
  it("refuses a body whose declared length passes UPLOAD_MAX_BYTES before reading it (413)", async () => {
    const before = store.requests("upload").length;
    const response = await fixture.api("alice", "/api/projects/team/files/inputs/big.bin", { method: "PUT", body: Buffer.alloc(5000, 1) });
    expect(await json(response)).toEqual({ status: 413, body: failure("PAYLOAD_TOO_LARGE") });
    expect(store.requests("upload").length).toBe(before);
    expect(await staged()).toBe(0);
  });

  it("stops a streamed body at UPLOAD_MAX_BYTES and keeps nothing of it (docs/security.md case 169)", async () => {
    const before = store.requests("upload").length;
    const answer = await chunkedPut("/api/projects/team/files/inputs/stream.bin", [Buffer.alloc(3000, 1), Buffer.alloc(3000, 2)]);
    expect(answer).toEqual({ status: 413, body: failure("PAYLOAD_TOO_LARGE") });
    expect(store.requests("upload").length).toBe(before);
    expect(await staged()).toBe(0);
    // at the limit exactly it is stored
    expect((await chunkedPut("/api/projects/team/files/inputs/exact.bin", [Buffer.alloc(4000, 1), Buffer.alloc(96, 2)])).status).toBe(201);
    expect(store.uploaded.get("project:team:inputs/exact.bin")?.byteLength).toBe(4096);
  });

  it("takes several files in one multipart upload into the folder asked for", async () => {
    const { body, type } = multipart([
      { name: "brief.md", content: "# Brief\n" },
      { name: "research/market.md", content: "# Market\n" },
    ]);
    const response = await json(await fixture.api("bob", "/api/projects/team/files?folder=inputs", { method: "POST", body, headers: { "content-type": type } }));
    expect(response.status).toBe(201);
    expect(response.body["files"].map((stored: { file: { path: string } }) => stored.file.path)).toEqual(["inputs/brief.md", "inputs/research/market.md"]);
    expect(new TextDecoder().decode(store.uploaded.get("project:team:inputs/research/market.md"))).toBe("# Market\n");
  });

  it("stops a multipart upload at the first refused file and says which were stored", async () => {
    const { body, type } = multipart([
      { name: "ok.md", content: "fine" },
      { name: "../escape.md", content: "no" },
      { name: "after.md", content: "never read" },
    ]);
    const response = await json(await fixture.api("alice", "/api/projects/team/files", { method: "POST", body, headers: { "content-type": type } }));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: "INVALID_PATH" }, files: [{ file: { path: "ok.md" } }] });
    expect(store.uploaded.has("project:team:after.md")).toBe(false);
  });

  it("refuses more files than UPLOAD_MAX_FILES in one upload (413), a part past UPLOAD_MAX_BYTES, and a body that is not multipart", async () => {
    const many = multipart(["a", "b", "c", "d"].map((name) => ({ name: `${name}.md`, content: name })));
    const tooMany = await json(await fixture.api("alice", "/api/projects/team/files", { method: "POST", body: many.body, headers: { "content-type": many.type } }));
    expect(tooMany).toMatchObject({ status: 413, body: { error: { code: "PAYLOAD_TOO_LARGE" } } });
    expect(tooMany.body["files"]).toHaveLength(3);
    const big = multipart([{ name: "big.bin", content: Buffer.alloc(5000, 7) }]);
    expect((await json(await fixture.api("alice", "/api/projects/team/files", { method: "POST", body: big.body, headers: { "content-type": big.type } }))).status).toBe(413);
    expect(store.uploaded.has("project:team:big.bin")).toBe(false);
    expect((await fixture.api("alice", "/api/projects/team/files", { method: "POST", body: "x", headers: { "content-type": "text/plain" } })).status).toBe(400);
  });

  it("lets neither a viewer nor a non-member upload, before anything is staged (case 170)", async () => {
    const asked = store.received.length;
    const { body, type } = multipart([{ name: "x.md", content: "x" }]);
    expect(await json(await fixture.api("carol", "/api/projects/team/files/x.md", { method: "PUT", body: "x" }))).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    expect((await fixture.api("carol", "/api/projects/team/files", { method: "POST", body, headers: { "content-type": type } })).status).toBe(403);
    expect((await fixture.api("dave", "/api/projects/team/files/x.md", { method: "PUT", body: "x" })).status).toBe(404);
    expect((await fixture.api("carol", "/api/projects/team/source", { method: "POST", body: "x", headers: { "content-type": "application/zip" } })).status).toBe(403);
    expect((await fixture.api("dave", "/api/projects/team/import", { method: "POST", body: "x", headers: { "content-type": "application/zip" } })).status).toBe(404);
    expect(store.received.length).toBe(asked);
    expect(await staged()).toBe(0);
  });
});
