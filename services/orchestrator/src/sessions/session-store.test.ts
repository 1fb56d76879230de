import { randomUUID } from "node:crypto";
import { ErrorCode, NatsError, type KV } from "nats";
import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import type { ConversationMessage } from "@agent-orchestrator/shared/wire";
import { headKey, SessionStore } from "./session-store.js";
import { projectChatKey } from "./session-keys.js";
import { scratchStreams } from "../testing/scratch-streams.js";

const scratch = scratchStreams();

async function openBucket(): Promise<KV> {
  const bucket = `sessions_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return scratch.connection().jetstream().views.kv(bucket, { history: 1 });
}

/** A bucket that records every key read and every key filter listed. */
function recording(kv: KV) {
  const read: string[] = [];
  const listed: string[] = [];
  const proxy = new Proxy(kv, {
    get(target, property, receiver) {
      if (property === "get") return (key: string) => (read.push(key), target.get(key));
      if (property === "keys") return (filter: string) => (listed.push(filter), target.keys(filter));
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { kv: proxy, read, listed };
}

const text = (role: "user" | "assistant", size: number, fill = "x"): ConversationMessage => ({ role, content: fill.repeat(size) });

async function newSession(store: SessionStore, owner = "alice", id = `s${randomUUID().slice(0, 8)}`) {
  const created = await store.createRunning({ id, agentId: "analyst", owner, projectId: "p1", runId: "r1" });
  if (!created) throw new Error("not created");
  return created;
}

describe("SessionStore", () => {
  it("keeps a conversation that grows past 2 MB working and reads it back whole", async () => {
    const store = SessionStore.over(await openBucket());
    let { record, version } = await newSession(store);
    for (let turn = 0; turn < 3; turn++) {
      record = { ...record, messages: [...record.messages, text("user", 10, "q"), text("assistant", 900_000, "é")], turns: turn + 1 };
      version = await store.update(record, version);
    }
    const stored = await store.get(record.id, "alice");
    expect(JSON.stringify(stored?.record.messages).length).toBeGreaterThan(2_000_000);
    expect(stored?.record.messages).toEqual(record.messages);
    expect(stored?.record.turns).toBe(3);
    expect(stored?.version.title).toBe("qqqqqqqqqq");
  });

  it("lists only the caller's sessions, reading no other owner's keys", async () => {
    const recorder = recording(await openBucket());
    const store = SessionStore.over(recorder.kv);
    const mine = await Promise.all([newSession(store, "alice"), newSession(store, "alice")]);
    await newSession(store, "bob");
    await newSession(store, "alice2");
    recorder.read.length = 0;
    const heads = await store.listByOwner("alice");
    expect(heads.map((head) => head.id).sort()).toEqual(mine.map((session) => session.record.id).sort());
    expect(recorder.read.length).toBe(2);
    for (const key of recorder.read) expect(key.startsWith(headKey("alice", ""))).toBe(true);
    expect(recorder.listed).toEqual([`${headKey("alice", "*")}`]);
  });

  it("answers another owner's session as missing", async () => {
    const store = SessionStore.over(await openBucket());
    const { record } = await newSession(store, "alice");
    expect(await store.get(record.id, "bob")).toBeUndefined();
  });

  it("keeps a chat id its owner's: another owner's start of the same id makes nothing, in no project's listing", async () => {
    const kv = await openBucket();
    const store = SessionStore.over(kv);
    const { record } = await newSession(store, "alice");
    expect(await store.createRunning({ id: record.id, agentId: "analyst", owner: "bob", projectId: "p2", runId: "r2" })).toBeUndefined();
    expect(await store.locate(record.id)).toEqual({ owner: "alice", project_id: "p1" });
    // the project pointer and the head written alongside the refused claim are gone again
    expect((await kv.get(projectChatKey("p2", record.id)))?.operation).not.toBe("PUT");
    expect(await store.get(record.id, "bob")).toBeUndefined();
    expect((await store.listByProject("p1")).map((chat) => chat.head.owner)).toEqual(["alice"]);
    // a redelivered first turn of the owner's finds its chat made
    expect(await store.point(record.id, "alice", "p1")).toBe(true);
  });

  it("makes only a lost compare-and-set SESSION_BUSY, leaving the stored session as it was", async () => {
    const store = SessionStore.over(await openBucket());
    const { record, version } = await newSession(store);
    await store.update({ ...record, messages: [text("user", 5)] }, version);
    const stale = store.update({ ...record, messages: [text("user", 7, "z")] }, version);
    await expect(stale).rejects.toMatchObject({ code: "SESSION_BUSY" });
    expect((await store.get(record.id, "alice"))?.record.messages).toEqual([text("user", 5)]);
  });

  it("throws any other failure as it is, never as SESSION_BUSY", async () => {
    const kv = await openBucket();
    const store = SessionStore.over(kv);
    const { record, version } = await newSession(store);
    const broken = SessionStore.over(
      new Proxy(kv, {
        get: (target, property) =>
          property === "update" ? () => Promise.reject(new Error("stream offline")) : (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target),
      }),
    );
    const failure = await broken.update({ ...record, messages: [text("user", 5)] }, version).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(AppError.is(failure)).toBe(false);
    expect((failure as Error).message).toBe("stream offline");
  });

  it("leaves no head of a new chat whose pointer could not be written", async () => {
    const kv = await openBucket();
    const broken = SessionStore.over(
      new Proxy(kv, {
        get: (target, property) =>
          property === "create"
            ? (key: string, value: Uint8Array) => (key.startsWith("project.") ? Promise.reject(new Error("stream offline")) : target.create(key, value))
            : (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target),
      }),
    );
    const id = `s${randomUUID().slice(0, 8)}`;
    await expect(broken.createRunning({ id, agentId: "analyst", owner: "alice", projectId: "p1", runId: "r1" })).rejects.toThrow("stream offline");
    const store = SessionStore.over(kv);
    expect(await store.get(id, "alice")).toBeUndefined();
    // the turn sent again once the stream is back makes the chat whole
    expect(await store.createRunning({ id, agentId: "analyst", owner: "alice", projectId: "p1", runId: "r1" })).toBeDefined();
    expect((await store.listByProject("p1")).map((chat) => chat.head.id)).toEqual([id]);
  });
});

describe("SessionStore: a bucket at its byte limit (docs/security.md case 130)", () => {
  it("case 130: refuses a save with QUOTA_EXCEEDED, keeps the stored session as it was, and still saves a turn's status", async () => {
    const bucket = `sessions_${randomUUID().slice(0, 8)}`;
    scratch.track(`KV_${bucket}`);
    const connection = scratch.connection();
    // made without a limit first, as by an orchestrator before the limit existed: opening it again sets the limit
    await SessionStore.open(connection, bucket);
    const store = await SessionStore.open(connection, bucket, { maxBytes: 1024 * 1024 });
    expect((await (await connection.jetstreamManager()).streams.info(`KV_${bucket}`)).config.max_bytes).toBe(1024 * 1024);

    const { record, version } = await newSession(store);
    const first = { ...record, messages: [text("user", 10, "q"), text("assistant", 600_000)], turns: 1 };
    const saved = await store.update(first, version);
    const tooMuch = { ...first, messages: [...first.messages, text("user", 10, "q"), text("assistant", 600_000)], turns: 2 };
    const refused = await store.update(tooMuch, saved).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "QUOTA_EXCEEDED", message: expect.stringContaining("SESSIONS_BUCKET_MAX_BYTES") });

    const stored = await store.get(record.id, "alice");
    expect(stored?.record.messages.map((message) => String(message["content"]).length)).toEqual([10, 600_000]);
    // the turn's end: its status only, which rewrites the head in place
    await store.update({ ...first, status: "failed", run_id: null }, saved);
    expect((await store.get(record.id, "alice"))?.record.status).toBe("failed");
    await expect(store.createRunning({ id: `s${randomUUID().slice(0, 8)}`, agentId: "analyst", owner: "bob", projectId: "p1", runId: "r2" })).resolves.toBeDefined();
  });
});

/**
 * A bucket where the first `method` write of each key reaches the stream (it lands) but its answer never comes: what
 * an orchestrator sees when the server it sent the request through is killed (test/faults/cluster-failover.test.ts).
 */
function answerLostOnce(kv: KV, method: "create" | "update") {
  const lost = new Set<string>();
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      const bound = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
      if (property !== method) return bound;
      return async (key: string, ...rest: unknown[]) => {
        const result = await bound(key, ...rest);
        if (lost.has(key)) return result;
        lost.add(key);
        throw NatsError.errorForCode(ErrorCode.Timeout);
      };
    },
  });
}

describe("SessionStore through a server's loss (docs/operations.md \"Known limits on nats-server 2.9\")", () => {
  it("starts a new chat whose head was stored but whose answer was lost, rather than failing the turn or taking it for another delivery's", async () => {
    const store = SessionStore.over(answerLostOnce(await openBucket(), "create"));
    const created = await store.createRunning({ id: "lost-answer", agentId: "analyst", owner: "alice", projectId: "p1", runId: "r1" });
    expect(created?.record).toMatchObject({ id: "lost-answer", status: "running", run_id: "r1" });
    expect((await store.get("lost-answer", "alice"))?.version.revision).toBe(created?.version.revision);
  });

  it("saves a turn whose head compare-and-set landed but whose answer was lost: the session holds the turn once", async () => {
    const kv = await openBucket();
    const { record, version } = await newSession(SessionStore.over(kv));
    const store = SessionStore.over(answerLostOnce(kv, "update"));
    const answered = { ...record, status: "completed" as const, run_id: null, messages: [text("user", 5, "q"), text("assistant", 7, "a")], turns: 1 };
    const saved = await store.update(answered, version);
    const stored = await store.get(record.id, "alice");
    expect(stored?.version.revision).toBe(saved.revision);
    expect(stored?.record).toMatchObject({ status: "completed", turns: 1, messages: answered.messages });
  });
});
