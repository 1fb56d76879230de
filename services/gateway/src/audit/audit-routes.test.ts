import { beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { AuditPage, jetStreamNames, subjects, type AuditRecord } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, type FixtureUser } from "../testing/gateway-fixture.js";
import { readAuditPage } from "./audit-reader.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const send = (user: FixtureUser, method: string, path: string, body?: unknown) =>
  fixture.api(user, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }) });
const page = async (user: FixtureUser, query = "") => {
  const response = await send(user, "GET", `/api/projects/team/audit${query}`);
  return { status: response.status, body: (await response.json()) as AuditPage & { error?: { code: string } } };
};
/** the acts on the project whose records the cases read, each case on its own */
const acts: Array<[FixtureUser, string, string, unknown, number]> = [
  ["alice", "PATCH", "/api/projects/team", { name: "Team" }, 200],
  ["alice", "PUT", "/api/projects/team/members/dave", { role: "viewer" }, 200],
  ["alice", "DELETE", "/api/projects/team/members/dave", undefined, 200],
  // refused acts are recorded too: bob is an editor, not the owner
  ["bob", "DELETE", "/api/projects/team", undefined, 403],
];
beforeAll(async () => {
  orchestrator.answer();
  orchestrator.addProject("team", "alice", { bob: "editor", carol: "viewer" });
  for (const [user, method, path, body, status] of acts) expect((await send(user, method, path, body)).status).toBe(status);
});

/** The project's records once `count` of them are stored (records are published after each answer). */
const recordsOnce = async (count: number): Promise<AuditPage["records"]> =>
  vi.waitFor(
    async () => {
      const { body } = await page("alice", "?limit=500");
      expect(body.records.length).toBeGreaterThanOrEqual(count);
      return body.records;
    },
    { timeout: 10_000, interval: 50 },
  );

describe("the audit log of a project", () => {
  it("case 204: records each act on the project with its actor, target, outcome and client address, oldest first", async () => {
    const records = await recordsOnce(4);
    const shape = (record: AuditRecord) => [record.actor, record.action, record.target, record.outcome, record.detail];
    expect(records.map(shape)).toEqual([
      ["alice", "project_renamed", undefined, "ok", undefined],
      ["alice", "member_put", "member:dave", "ok", "viewer"],
      ["alice", "member_removed", "member:dave", "ok", undefined],
      ["bob", "project_deleted", undefined, "refused", "PROJECT_FORBIDDEN"],
    ]);
    for (const record of records) {
      expect(record).toMatchObject({ project_id: "team", client_address: expect.stringMatching(/127\.0\.0\.1/), id: expect.any(String), time: expect.any(String) });
    }
    expect(records.map((record) => record.seq)).toEqual([...records.map((record) => record.seq)].sort((a, b) => a - b));
  });

  it("pages by cursor and filters by actor and time", async () => {
    const all = await recordsOnce(4);
    const first = await page("alice", "?limit=2");
    expect(first.body.records).toEqual(all.slice(0, 2));
    expect(first.body.next_cursor).toBe(String((all[1]?.seq ?? 0) + 1));
    const second = await page("alice", `?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.records).toEqual(all.slice(2, 4));
    const bobs = await page("alice", "?actor=bob");
    expect(bobs.body.records.map((record) => [record.actor, record.action])).toEqual([["bob", "project_deleted"]]);
    const removal = all[2] as AuditRecord;
    const since = await page("alice", `?since=${encodeURIComponent(removal.time)}`);
    expect(since.body.records[0]?.time).toBe(removal.time);
    expect(since.body.records).not.toContainEqual(expect.objectContaining({ action: "project_renamed" }));
    const until = await page("alice", `?until=${encodeURIComponent((all[0] as AuditRecord).time)}`);
    expect(until.body.records.every((record) => record.time <= (all[0] as AuditRecord).time)).toBe(true);
    expect(until.body.next_cursor).toBeUndefined();
    expect((await page("alice", "?limit=0")).status).toBe(400);
    expect((await page("alice", "?cursor=abc")).status).toBe(400);
  });

  it("case 202: is read by the project's owner only: a member gets 403, anyone else 404", async () => {
    expect((await page("bob")).status).toBe(403);
    expect((await page("carol")).body.error?.code).toBe("PROJECT_FORBIDDEN");
    expect((await page("dave")).status).toBe(404);
    expect((await page("dave")).body.error?.code).toBe("PROJECT_NOT_FOUND");
  });

  it("records a created project under its new id, and a token's making outside any project", async () => {
    const created = (await (await send("carol", "POST", "/api/projects", { name: "Carol's" })).json()) as { project: { id: string } };
    const made = (await (await send("carol", "POST", "/api/tokens", { name: "script" })).json()) as { id: string; token: string };
    const read = (filter: string) => readAuditPage({ connection: fixture.connection(), logger: createLogger("test", "silent") }, jetStreamNames(fixture.prefix).auditStream, fixture.prefix + filter, { limit: 100 });
    await vi.waitFor(async () => {
      expect((await read(subjects.audit(created.project.id, "*", "*"))).records).toEqual([
        expect.objectContaining({ actor: "carol", action: "project_created", project_id: created.project.id, outcome: "ok" }),
      ]);
      const tokens = (await read(subjects.audit("_", "*", "token_created"))).records;
      expect(tokens).toEqual([expect.objectContaining({ actor: "carol", action: "token_created", target: made.id, outcome: "ok" })]);
      // the record names the token by its id, never the token
      expect(JSON.stringify(tokens)).not.toContain(made.token);
    });
  });
});
