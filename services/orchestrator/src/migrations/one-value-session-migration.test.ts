import { randomUUID } from "node:crypto";
import type { KV } from "nats";
import { describe, expect, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { zeroUsage, type ConversationMessage, type SessionRecord } from "@agent-orchestrator/shared/wire";
import { SessionStore } from "../sessions/session-store.js";
import { headKey } from "../sessions/session-keys.js";
import { scratchStreams } from "../testing/scratch-streams.js";
import { moveOneValueSessions, oneValueSessions } from "./one-value-session-migration.js";

const scratch = scratchStreams();

async function openBucket(): Promise<KV> {
  const bucket = `sessions_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return scratch.connection().jetstream().views.kv(bucket, { history: 1 });
}

const text = (role: "user" | "assistant", size: number, fill = "x"): ConversationMessage => ({ role, content: fill.repeat(size) });

describe("sessions in the one-value shape (key = session id)", () => {
  it("are read as they are, and moved to a head by their next save", async () => {
    const kv = await openBucket();
    const store = SessionStore.over(kv, { olderShapes: oneValueSessions });
    const old: SessionRecord = {
      id: "old1",
      agent_id: "analyst",
      owner: "alice",
      status: "completed",
      run_id: null,
      run_started_at: null,
      last_run_id: "r0",
      messages: [text("user", 3, "h"), text("assistant", 4)],
      usage: zeroUsage(),
      turns: 1,
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2025-01-01T00:00:00.000Z",
    };
    await kv.put("old1", encodeJson(old));
    const read = await store.get("old1", "alice");
    expect(read?.record.messages).toEqual(old.messages);
    expect(await store.getState("old1", "alice")).toMatchObject({ id: "old1", turns: 1 });
    expect(await store.get("old1", "bob")).toBeUndefined();
    const grown = { ...old, messages: [...old.messages, text("user", 2)] };
    await store.update(grown, read!.version);
    expect(await kv.get("old1").then((entry) => entry?.operation)).not.toBe("PUT");
    expect(await kv.get(headKey("alice", "old1")).then((entry) => entry?.operation)).toBe("PUT");
    expect((await store.get("old1", "alice"))?.record.messages).toEqual(grown.messages);
  });

  it("are moved at start, so their owner's listing shows them, and a second start moves none", async () => {
    const kv = await openBucket();
    const store = SessionStore.over(kv, { olderShapes: oneValueSessions });
    const old = { id: "old2", agent_id: "a", owner: "carol", status: "idle", run_id: null, run_started_at: null, last_run_id: null };
    await kv.put("old2", encodeJson({ ...old, messages: [text("user", 3, "m")], usage: zeroUsage(), turns: 1, created_at: "2025-01-01", updated_at: "2025-01-02" }));
    expect(await moveOneValueSessions(kv, store)).toBe(1);
    expect(await store.listByOwner("carol")).toMatchObject([{ id: "old2", title: "mmm", updated_at: "2025-01-02" }]);
    expect(await moveOneValueSessions(kv, store)).toBe(0);
  });
});
