import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { startInMemoryTracing } from "@agent-orchestrator/shared/testing";
import type { SessionStore } from "./session-store.js";
import { tracedSessionStore } from "./traced-session-store.js";

/** Enough of a store to see the proxy at work: its methods use `this`, as the real one's do. */
class FakeStore {
  private readonly records = new Map([["s1", { id: "s1" }]]);
  async get(id: string) {
    return this.records.get(id);
  }
  async update(): Promise<number> {
    throw new AppError("SESSION_BUSY", "changed");
  }
  size(): number {
    return this.records.size;
  }
}

let tracing: ReturnType<typeof startInMemoryTracing> | undefined;
afterEach(() => tracing?.stop());

const traced = () => tracedSessionStore(new FakeStore() as unknown as SessionStore) as unknown as FakeStore;

describe("tracedSessionStore", () => {
  it("makes each call a KV span and keeps what it returns or throws", async () => {
    tracing = startInMemoryTracing();
    const store = traced();
    expect(await store.get("s1")).toEqual({ id: "s1" });
    await expect(store.update()).rejects.toMatchObject({ code: "SESSION_BUSY" });
    expect(store.size()).toBe(1);
    const spans = tracing.exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(["session_store get", "session_store update", "session_store size"]);
    expect(spans[0]?.attributes).toEqual({ "db.system.name": "nats_kv", "db.operation.name": "get" });
    expect(spans[1]?.attributes["error.type"]).toBe("SESSION_BUSY");
  });

  it("calls the store directly with tracing off", async () => {
    const store = traced();
    expect(await store.get("s1")).toEqual({ id: "s1" });
    expect(store.size()).toBe(1);
  });
});
