/**
 * The audit log end to end (docs/audit.md; docs/security.md cases 202–206): every act on a project, by its owner,
 * its members and an agent, is one record in the AUDIT stream with its actor, target and outcome, read by the
 * project's owner alone through `GET /api/projects/:id/audit`, paged and filtered; no record holds a file's
 * contents or a token. Real processes with the production NATS permissions, AUTH_TOKENS, the scripted model.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path, { join } from "node:path";
import { AckPolicy, connect, DeliverPolicy } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJson } from "@agent-orchestrator/shared/runtime";
import { AuditRecord, jetStreamNames, subjects, type AuditPage } from "@agent-orchestrator/shared/wire";
import { hostileArchives as archives } from "@agent-orchestrator/tool-runner/testing";
import { testNatsCredentials } from "@agent-orchestrator/testing/nats-harness";
import { repoRoot } from "@agent-orchestrator/testing/service-processes";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";

const tokens = { alice: "alice-token-1111", bob: "bob-token-22222", carol: "carol-token-3333" } as const;
type User = keyof typeof tokens;
/** What the uploaded file holds: it must be in no record. */
const secretContent = "TOP-SECRET-CONTENT-4242";
let system: TestSystem;
let dir: string;
let project: string;

async function api(user: User, method: string, route: string, body?: unknown, type = "application/json"): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  const response = await fetch(`${system.url}${route}`, { method, headers: { authorization: `Bearer ${tokens[user]}`, ...(payload === undefined ? {} : { "content-type": type }) }, ...(payload === undefined ? {} : { body: payload }) });
  const text = await response.text();
  return { status: response.status, body: response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

/** The project's records as its owner reads them, every page, once at least `count` are stored. */
async function projectRecords(count: number, query = ""): Promise<AuditPage["records"]> {
  return waitUntil(
    async () => {
      const records: AuditPage["records"] = [];
      let cursor: string | undefined;
      do {
        const page = await api("alice", "GET", `/api/projects/${project}/audit?limit=5${query}${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.status).toBe(200);
        records.push(...(page.body as AuditPage).records);
        cursor = (page.body as AuditPage).next_cursor;
      } while (cursor);
      return records.length >= count ? records : undefined;
    },
    { message: `${count} audit records`, intervalMs: 100 },
  );
}

/** Records of the whole stream on `filter`, read as an operator (the admin user), as `npm run audit:export` does. */
async function streamRecords(filter: string): Promise<AuditRecord[]> {
  const admin = await connect({ servers: system.env["NATS_URL"], user: "admin", pass: testNatsCredentials("admin").NATS_PASSWORD });
  try {
    const stream = jetStreamNames().auditStream;
    const info = await (await admin.jetstreamManager()).consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, filter_subject: filter, mem_storage: true });
    const records: AuditRecord[] = [];
    if (info.num_pending > 0) {
      const consumer = await admin.jetstream().consumers.get(stream, info.name);
      for await (const message of await consumer.fetch({ max_messages: info.num_pending, expires: 5_000 })) {
        records.push(decodeJson(message.data, AuditRecord));
        if (records.length === info.num_pending) break;
      }
    }
    return records;
  } finally {
    await admin.close();
  }
}

/** The model saves the file the user's message names (a line `save <path>`), then says it is done. */
function saveResponder(request: ChatRequestBody): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: "Saved." };
  const path = /^save (\S+)$/m.exec(String(last?.content ?? ""))?.[1];
  return path === undefined ? { text: "Hello" } : { toolCalls: [{ name: "save_output", arguments: { file_path: path, content: secretContent } }] };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ao-audit-e2e-"));
  system = await startTestSystem({
    responder: saveResponder,
    // the polls below read the log many times a minute
    env: { AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","), HOST: "127.0.0.1", RATE_LIMIT_PER_MINUTE: "100000" },
  });
  project = (await api("alice", "POST", "/api/projects", { name: "Audited" })).body.project.id as string;
}, 60_000);

afterAll(async () => {
  await system?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the audit log", { shuffle: false }, () => {
  it("case 204: records each act on a project with its actor, target and outcome, oldest first", async () => {
    const acts: Array<[User, string, string, unknown?, string?]> = [
      ["alice", "PATCH", `/api/projects/${project}`, { name: "Audited project" }],
      ["alice", "PUT", `/api/projects/${project}/members/bob`, { role: "editor" }],
      ["alice", "PUT", `/api/projects/${project}/members/carol`, { role: "viewer" }],
      ["alice", "PUT", `/api/projects/${project}/members/carol`, { role: "editor" }],
      ["alice", "DELETE", `/api/projects/${project}/members/carol`],
      ["bob", "PUT", `/api/projects/${project}/files/docs/prd.md`, `# PRD\n${secretContent}\n`, "text/markdown"],
      ["bob", "DELETE", `/api/projects/${project}/files/docs/prd.md`],
      ["bob", "POST", `/api/projects/${project}/files/docs/prd.md?restore=1`],
      ["alice", "GET", `/api/projects/${project}/archive`],
      ["alice", "POST", `/api/projects/${project}/source`, await readFile(await archives.writeCodeBaseZip(dir)), "application/zip"],
      ["alice", "DELETE", `/api/projects/${project}/source`],
    ];
    for (const [user, method, route, body, type] of acts) expect((await api(user, method, route, body, type)).status, `${method} ${route}`).toBeLessThan(300);
    const exported = await fetch(`${system.url}/api/projects/${project}/archive`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    const zip = new Uint8Array(await exported.arrayBuffer());
    expect((await api("alice", "POST", `/api/projects/${project}/import`, zip, "application/zip")).status).toBe(200);
    // refused: bob is an editor, not the owner; carol is no longer a member
    expect((await api("bob", "DELETE", `/api/projects/${project}`)).status).toBe(403);
    expect((await api("carol", "PUT", `/api/projects/${project}/files/x.md`, "x", "text/markdown")).status).toBe(404);

    const records = await projectRecords(16);
    expect(records.map((record) => [record.actor, record.action, record.target ?? null, record.outcome])).toEqual([
      ["alice", "project_created", null, "ok"],
      ["alice", "project_renamed", null, "ok"],
      ["alice", "member_put", "member:bob", "ok"],
      ["alice", "member_put", "member:carol", "ok"],
      ["alice", "member_put", "member:carol", "ok"],
      ["alice", "member_removed", "member:carol", "ok"],
      ["bob", "file_uploaded", "docs/prd.md", "ok"],
      ["bob", "file_deleted", "docs/prd.md", "ok"],
      ["bob", "file_restored", "docs/prd.md", "ok"],
      ["alice", "archive_exported", null, "ok"],
      ["alice", "snapshot_put", null, "ok"],
      ["alice", "snapshot_deleted", null, "ok"],
      ["alice", "archive_exported", null, "ok"],
      ["alice", "archive_imported", null, "ok"],
      ["bob", "project_deleted", null, "refused"],
      ["carol", "file_uploaded", "x.md", "refused"],
    ]);
    expect(records.filter((record) => record.action === "member_put").map((record) => record.detail)).toEqual(["editor", "viewer", "editor"]);
    expect(records.find((record) => record.action === "project_deleted")?.detail).toBe("PROJECT_FORBIDDEN");
    for (const record of records) expect(record).toMatchObject({ project_id: project, client_address: expect.stringContaining("127.0.0.1") });
  });

  it("case 203: never holds a file's contents", async () => {
    const records = await projectRecords(16);
    const upload = records.find((record) => record.action === "file_uploaded" && record.outcome === "ok");
    expect(upload).toBeDefined();
    expect(JSON.stringify(upload)).not.toContain(secretContent);
    expect(JSON.stringify(records)).not.toContain(secretContent);
    expect(JSON.stringify(await streamRecords(subjects.auditAll))).not.toContain(secretContent);
  });

  it("case 205: records a chat started (and one refused), an agent's write (published by the tool-runner), a cancel and a deletion", async () => {
    const turn = await api("alice", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "save {project-root}/notes/brief.md" });
    expect(turn.status).toBe(200);
    const sessionId = turn.body.session_id as string;
    expect((await api("alice", "POST", `/api/sessions/${sessionId}/cancel`)).status).toBe(200);
    expect((await api("alice", "DELETE", `/api/sessions/${sessionId}`)).status).toBe(200);
    // carol is no longer a member: her chat in the project is refused, and recorded under it
    expect((await api("carol", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "hello" })).status).toBe(404);
    // the gateway records the start and the tool-runner the write, each as it happens: their order may vary
    const records = (await projectRecords(21)).slice(16);
    expect(records.map((record) => [record.actor, record.action, record.target, record.outcome]).sort()).toEqual(
      [
        ["alice", "chat_started", sessionId, "ok"],
        ["alice", "file_written", "notes/brief.md", "ok"],
        ["alice", "chat_cancelled", sessionId, "ok"],
        ["alice", "chat_deleted", sessionId, "ok"],
        ["carol", "chat_started", expect.any(String), "refused"],
      ].sort(),
    );
    expect(records.slice(2).map((record) => record.action)).toEqual(["chat_cancelled", "chat_deleted", "chat_started"]);
    expect(records.find((record) => record.actor === "carol")?.detail).toBe("PROJECT_NOT_FOUND");
    expect(records.find((record) => record.action === "file_written")?.detail).toMatch(new RegExp(`^agent idea-coach, chat ${sessionId}, call .+, revision 1$`));
    expect(JSON.stringify(records)).not.toContain(secretContent);
  });

  it("pages with a cursor and filters by actor and time", async () => {
    const all = await projectRecords(20);
    const first = await api("alice", "GET", `/api/projects/${project}/audit?limit=3`);
    expect((first.body as AuditPage).records).toEqual(all.slice(0, 3));
    const second = await api("alice", "GET", `/api/projects/${project}/audit?limit=3&cursor=${(first.body as AuditPage).next_cursor}`);
    expect((second.body as AuditPage).records).toEqual(all.slice(3, 6));
    const bobs = await projectRecords(4, "&actor=bob");
    expect(bobs).toEqual(all.filter((record) => record.actor === "bob"));
    const middle = all[10] as AuditRecord;
    const since = (await api("alice", "GET", `/api/projects/${project}/audit?limit=500&since=${encodeURIComponent(middle.time)}`)).body as AuditPage;
    expect(since.records.every((record) => record.time >= middle.time)).toBe(true);
    expect(since.records).toContainEqual(expect.objectContaining({ id: middle.id }));
    const until = (await api("alice", "GET", `/api/projects/${project}/audit?limit=500&until=${encodeURIComponent(middle.time)}`)).body as AuditPage;
    expect(until.records.at(-1)?.id).toBe(middle.id);
    expect(until.records).toEqual(all.filter((record) => record.time <= middle.time));
  });

  it("case 202: only the owner reads a project's audit: a member gets 403, anyone else 404", async () => {
    expect(await api("bob", "GET", `/api/projects/${project}/audit`)).toMatchObject({ status: 403, body: { error: { code: "PROJECT_FORBIDDEN" } } });
    expect(await api("carol", "GET", `/api/projects/${project}/audit`)).toMatchObject({ status: 404, body: { error: { code: "PROJECT_NOT_FOUND" } } });
  });

  it("case 203: records a token made and revoked outside any project, by its id, never the token", async () => {
    const made = (await api("bob", "POST", "/api/tokens", { name: "ci" })).body as { id: string; token: string };
    expect((await api("bob", "DELETE", `/api/tokens/${made.id}`)).status).toBe(200);
    const records = await waitUntil(async () => {
      const found = await streamRecords(`audit._.${Buffer.from("bob").toString("base64url")}.*`);
      return found.length >= 2 ? found : undefined;
    });
    expect(records.map((record) => [record.actor, record.action, record.target, record.outcome])).toEqual([
      ["bob", "token_created", made.id, "ok"],
      ["bob", "token_revoked", made.id, "ok"],
    ]);
    expect(JSON.stringify(records)).not.toContain(made.token.slice(4));
  });

  it("case 206: is exported whole by an operator with `npm run audit:export`, one JSON record per line", async () => {
    const all = await projectRecords(20);
    const since = (all[2] as AuditRecord).time;
    const exported = spawnSync(join(repoRoot, "node_modules/.bin/tsx"), ["scripts/audit-export.ts", "--project", project, "--since", since], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { PATH: process.env["PATH"] ?? "", NATS_URL: system.env["NATS_URL"], NATS_USER: "admin", NATS_PASSWORD: testNatsCredentials("admin").NATS_PASSWORD },
    });
    expect(exported.status, exported.stderr).toBe(0);
    const lines = exported.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual(all.filter((record) => record.time >= since));
    expect(exported.stderr).toContain(`${lines.length} audit records exported`);
    // a service's credentials cannot read the stream: the orchestrator's user has no access to AUDIT at all
    const refused = spawnSync(join(repoRoot, "node_modules/.bin/tsx"), ["scripts/audit-export.ts"], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { PATH: process.env["PATH"] ?? "", NATS_URL: system.env["NATS_URL"], ...testNatsCredentials("orchestrator") },
    });
    expect(refused.status).not.toBe(0);
  });

  it("case 205: keeps every service within its NATS permissions while recording", () => {
    for (const service of system.processes) expect(service.lines.filter((line) => /Permissions Violation/.test(String(line["msg"]))), service.name).toEqual([]);
  });
});
