/**
 * The tool-runner's file store waits out a JetStream that cannot take its writes (as while a stream elects a
 * new leader) instead of answering WRITE_FAILED: a write made while the server runs without JetStream, so
 * that every JetStream request gets "no responders" as in an election, is tried again and lands once
 * JetStream is back (shared's nats-retry.ts, fileStoreElectionWaitMs). One nats-server with file-backed
 * JetStream, started by this test on a free port, is replaced on the same port by one without JetStream,
 * then by the first again on the same store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsFailureKind } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { findNatsServerBinary, startLocalNats, type LocalNats } from "@agent-orchestrator/testing/local-nats";
import { FileStore } from "@agent-orchestrator/tool-runner";

const space: FileSpaceRef = { kind: "project", id: "outage-project" };
const author = { user: "ada", session_id: "outage-chat", agent_id: "analyst" };
const quota = { maxBytes: 1 << 30, maxFiles: 10_000 };
const decoder = new TextDecoder();

let storeDir: string;
let server: LocalNats;
let connection: NatsConnection;
let store: FileStore;

/** Replaces the server on its port: with JetStream on the same store, or (`jetStream` false) without it. */
async function replaceServer(jetStream: boolean): Promise<void> {
  const reconnected = nextReconnect(connection);
  const { port } = server;
  await server.stop();
  server = await startLocalNats({ storeDir, port, ...(jetStream ? {} : { args: ["-js=false"] }) });
  await reconnected;
}

async function nextReconnect(nats: NatsConnection): Promise<void> {
  for await (const status of nats.status()) if (status.type === "reconnect") return;
}

/** Resolves once `condition` holds, looking every 10 ms for at most `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !condition(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
  }
}

describe.skipIf(!findNatsServerBinary())("the file store while JetStream cannot take requests", () => {
  beforeAll(async () => {
    storeDir = await mkdtemp(join(tmpdir(), "ao-file-store-outage-"));
    server = await startLocalNats({ storeDir });
    connection = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
    store = await FileStore.open(connection.jetstream(), { flush: () => connection.flush(), subjectPrefix: "", replicas: 1, cacheBytes: 1 << 20, quotas: { project: quota, session: quota }, maxIndexBytes: 1 << 20 });
    await store.write(space, "docs/brief.md", "the first brief", author);
  });

  afterAll(async () => {
    await connection?.close();
    await server?.stop();
    await rm(storeDir, { recursive: true, force: true });
  });

  // a new content goes through the content store first; a known one (cached) starts at the index
  it.each([
    ["a new content", "the second brief"],
    ["a content the store already has", "the first brief"],
  ])("lands a write of %s made while JetStream is away, once it is back, rather than WRITE_FAILED", async (_case, content) => {
    const before = (await store.index(space)).files.get("docs/brief.md")?.revision ?? 0;
    await replaceServer(false);
    // JetStream is away: a request to its API gets no responders, as one to a stream without a leader does
    expect(natsFailureKind(await connection.jetstreamManager().catch((error: unknown) => error))).toBe("no-responders");
    const sentBefore = connection.stats().outMsgs;
    const writing = store.write(space, "docs/brief.md", content, author);
    // positive evidence of the wait: with JetStream away the write cannot pass its first request, which it sends
    // three times; a write that gives up (WRITE_FAILED) fails the test here
    await Promise.race([until(() => connection.stats().outMsgs >= sentBefore + 3, 10_000), writing]);
    await replaceServer(true);
    const written = await writing;
    expect(written.revision).toBe(before + 1);
    const read = await store.read(space, "docs/brief.md");
    expect({ revision: read.file.revision, content: decoder.decode(read.content) }).toEqual({ revision: before + 1, content });
  });
});
