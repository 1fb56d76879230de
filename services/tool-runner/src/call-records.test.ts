import { randomUUID } from "node:crypto";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { connect, type KV, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { CallRecords } from "./call-records.js";

let connection: NatsConnection;
const buckets: string[] = [];
const logger = createLogger("tool-runner-test", "silent");

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});

afterAll(async () => {
  const manager = await connection.jetstreamManager();
  await Promise.all(buckets.map((bucket) => manager.streams.delete(`KV_${bucket}`).catch(() => undefined)));
  await connection.drain();
});

/** A bucket of its own, opened as the tool-runner opens it. */
async function openBucket(): Promise<KV> {
  const bucket = jetStreamNames(`cr${randomUUID().slice(0, 8)}.`).toolCallsBucket;
  buckets.push(bucket);
  return connection.jetstream().views.kv(bucket, { history: 1, ttl: 24 * 3_600_000, replicas: 1 });
}

const record = { fingerprint: "f1", result: { success: true as const, path: "{session-folder}/a.md" } };

describe("CallRecords", () => {
  it("answers a retry on another replica from the record the first one kept", async () => {
    const kv = await openBucket();
    const first = new CallRecords(kv, logger);
    const second = new CallRecords(kv, logger);
    expect(await second.find("s1", "run1:1:call1")).toBeUndefined();
    await first.keep("s1", "run1:1:call1", record);
    expect(await second.find("s1", "run1:1:call1")).toEqual(record);
    // the same call id in another chat is another call
    expect(await second.find("s2", "run1:1:call1")).toBeUndefined();
  });

  it("keys each record by the chat and the call id's hash, and runs the call again rather than trust one it cannot read", async () => {
    const kv = await openBucket();
    const records = new CallRecords(kv, logger);
    await records.keep("s1", "c1", record);
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    expect(keys).toEqual([expect.stringMatching(/^s1\.[0-9a-f]{64}$/)]);
    await kv.put(keys[0] ?? "", "{not json");
    expect(await records.find("s1", "c1")).toBeUndefined();
  });

  it("keeps successes and the failures that come after a script ran, not the others", () => {
    expect(CallRecords.isFinal({ success: true })).toBe(true);
    expect(CallRecords.isFinal({ success: false, error: { code: "QUOTA_EXCEEDED", message: "" } })).toBe(true);
    expect(CallRecords.isFinal({ success: false, error: { code: "BUSY", message: "" } })).toBe(false);
  });
});
