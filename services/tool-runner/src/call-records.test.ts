import { randomUUID } from "node:crypto";
import { createLogger, jetStreamNames } from "@agent-orchestrator/shared";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { callRecordMaxAgeMs, CallRecords } from "./call-records.js";

let connection: NatsConnection;
const prefixes: string[] = [];
const logger = createLogger("tool-runner-test", "silent");

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});

afterAll(async () => {
  const manager = await connection.jetstreamManager();
  await Promise.all(prefixes.map((prefix) => manager.streams.delete(`KV_${jetStreamNames(prefix).toolCallsBucket}`).catch(() => undefined)));
  await connection.drain();
});

function prefix(): string {
  const lead = `cr${randomUUID().slice(0, 8)}.`;
  prefixes.push(lead);
  return lead;
}

const record = { fingerprint: "f1", result: { success: true as const, path: "{session-folder}/a.md" } };

describe("CallRecords", () => {
  it("answers a retry on another replica from the record the first one kept", async () => {
    const subjectPrefix = prefix();
    const first = await CallRecords.open(connection.jetstream(), { subjectPrefix, replicas: 1 }, logger);
    const second = await CallRecords.open(connection.jetstream(), { subjectPrefix, replicas: 1 }, logger);
    expect(await second.find("s1", "run1:1:call1")).toBeUndefined();
    await first.keep("s1", "run1:1:call1", record);
    expect(await second.find("s1", "run1:1:call1")).toEqual(record);
    // the same call id in another chat is another call
    expect(await second.find("s2", "run1:1:call1")).toBeUndefined();
  });

  it("keeps one value per call for a day, as the bucket's history and max age say", async () => {
    const subjectPrefix = prefix();
    await CallRecords.open(connection.jetstream(), { subjectPrefix, replicas: 1 }, logger);
    const kv = await connection.jetstream().views.kv(jetStreamNames(subjectPrefix).toolCallsBucket);
    const status = await kv.status();
    expect(status.history).toBe(1);
    expect(status.ttl).toBe(callRecordMaxAgeMs);
  });

  it("runs the call again rather than trust a record it cannot read", async () => {
    const subjectPrefix = prefix();
    const records = await CallRecords.open(connection.jetstream(), { subjectPrefix, replicas: 1 }, logger);
    const kv = await connection.jetstream().views.kv(jetStreamNames(subjectPrefix).toolCallsBucket);
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
