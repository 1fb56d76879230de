import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import type { FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { appErrorOf } from "../testing/app-error-of.js";
import { FileStore } from "./file-store.js";

let connection: NatsConnection;
const prefixes: string[] = [];

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});

afterAll(async () => {
  const manager = await connection.jetstreamManager();
  const streams = prefixes.flatMap((lead) => [`KV_${lead}_file_index`, `KV_${lead}_file_revisions`, `OBJ_${lead}_file_contents`]);
  await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
  await connection.drain();
});

async function openStore(quota = { maxBytes: 1000, maxFiles: 5 }, cacheBytes = 1 << 20): Promise<FileStore> {
  const lead = `fs${randomUUID().slice(0, 8)}`;
  prefixes.push(lead);
  return FileStore.open(connection.jetstream(), {
    flush: () => connection.flush(),
    subjectPrefix: `${lead}.`,
    replicas: 1,
    cacheBytes,
    quotas: { project: quota, session: quota },
    maxIndexBytes: 1 << 20,
  });
}

const project: FileSpaceRef = { kind: "project", id: "p1" };
const alice = { user: "alice", session_id: "s1", agent_id: "analyst" };
const bob = { user: "bob", session_id: "s2", agent_id: "pm" };
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("FileStore", () => {
  it("keeps every write as a revision with its author, and reads the latest or any kept one", async () => {
    const store = await openStore();
    const first = await store.write(project, "docs/brief.md", "one", alice);
    const second = await store.write(project, "docs/brief.md", "two", bob);
    expect([first.revision, second.revision]).toEqual([1, 2]);
    expect(text((await store.read(project, "docs/brief.md")).content)).toBe("two");
    expect(text((await store.read(project, "docs/brief.md", 1)).content)).toBe("one");
    const revisions = await store.revisions(project, "docs/brief.md");
    expect(revisions.map((revision) => [revision.revision, revision.author.user])).toEqual([
      [2, "bob"],
      [1, "alice"],
    ]);
  });

  it("makes a deletion and a restore revisions too", async () => {
    const store = await openStore();
    await store.write(project, "prd.md", "v1", alice);
    const removed = await store.remove(project, "prd.md", bob);
    expect(removed).toMatchObject({ revision: 2, deleted: true });
    expect((await appErrorOf(store.read(project, "prd.md"), "/")).code).toBe("FILE_NOT_FOUND");
    const restored = await store.restore(project, "prd.md", 1, alice);
    expect(restored.revision).toBe(3);
    expect(text((await store.read(project, "prd.md")).content)).toBe("v1");
    expect((await store.revisions(project, "prd.md")).map((revision) => revision.revision)).toEqual([3, 2, 1]);
  });

  it("lands two writers of one file at once as two revisions, neither lost (docs/security.md case 153)", async () => {
    const store = await openStore();
    const writes = await Promise.all(Array.from({ length: 8 }, (_, index) => store.write(project, "sprint-status.yaml", `writer ${index}`, alice)));
    expect(writes.map((write) => write.revision).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const kept = await store.revisions(project, "sprint-status.yaml");
    const contents = await Promise.all(kept.map(async (revision) => text((await store.read(project, "sprint-status.yaml", revision.revision)).content)));
    expect(contents.sort()).toEqual(Array.from({ length: 8 }, (_, index) => `writer ${index}`).sort());
  });

  it("lands 150 simultaneous writes of one replica into one space, none refused as busy", async () => {
    const store = await openStore({ maxBytes: 1 << 20, maxFiles: 1000 });
    const writes = await Promise.all(Array.from({ length: 150 }, (_, index) => store.write(project, `notes/n${index}.md`, `note ${index}`, alice)));
    expect(writes.every((write) => write.revision === 1)).toBe(true);
    expect((await store.index(project)).files.size).toBe(150);
  });

  it("keeps a space a tree: no file where a folder is, nothing under a file, judged after the whole batch", async () => {
    const store = await openStore({ maxBytes: 1 << 20, maxFiles: 100 });
    await store.write(project, "docs/prd.md", "p", alice);
    expect((await appErrorOf(store.write(project, "docs", "d", alice), "/tmp")).code).toBe("NOT_A_FILE");
    expect((await appErrorOf(store.write(project, "docs/prd.md/x.md", "x", alice), "/tmp")).code).toBe("INVALID_PATH");
    // a batch that removes the file first may put a folder in its place
    const encoder = new TextEncoder();
    await store.apply(project, [{ path: "docs/prd.md", content: null }, { path: "docs/prd.md/v2.md", content: encoder.encode("v2") }], alice);
    expect([...(await store.index(project)).files.values()].filter((file) => file.deleted !== true).map((file) => file.path)).toEqual(["docs/prd.md/v2.md"]);
  });

  it("refuses a write past the space's quota in the same step, and lets a file be rewritten shorter", async () => {
    const store = await openStore({ maxBytes: 10, maxFiles: 2 });
    await store.write(project, "a.md", "12345", alice);
    await store.write(project, "b.md", "12345", alice);
    const third = await appErrorOf(store.write(project, "c.md", "1", alice), "/");
    expect(third.code).toBe("QUOTA_EXCEEDED");
    const bigger = await appErrorOf(store.write(project, "a.md", "123456", alice), "/");
    expect(bigger.code).toBe("QUOTA_EXCEEDED");
    await expect(store.write(project, "a.md", "1234", alice)).resolves.toMatchObject({ revision: 2 });
  });

  it("applies a batch all together or not at all", async () => {
    const store = await openStore({ maxBytes: 100, maxFiles: 2 });
    const refused = await appErrorOf(store.apply(project, ["x", "y", "z"].map((name) => ({ path: `${name}.md`, content: new TextEncoder().encode(name) })), alice), "/");
    expect(refused.code).toBe("QUOTA_EXCEEDED");
    expect((await store.index(project)).files.size).toBe(0);
  });

  it("serves a file from another replica's store, content by content address", async () => {
    const store = await openStore();
    await store.write(project, "architecture.md", "shared", alice);
    // a second store on the same buckets (another tool-runner) with an empty cache
    const lead = prefixes[prefixes.length - 1] ?? "";
    const replica = await FileStore.open(connection.jetstream(), {
      flush: () => connection.flush(),
      subjectPrefix: `${lead}.`,
      replicas: 1,
      cacheBytes: 1 << 20,
      quotas: { project: { maxBytes: 1000, maxFiles: 5 }, session: { maxBytes: 1000, maxFiles: 5 } },
      maxIndexBytes: 1 << 20,
    });
    expect(text((await replica.read(project, "architecture.md")).content)).toBe("shared");
  });

  it("forgets a purged space and keeps other spaces", async () => {
    const store = await openStore();
    const chat: FileSpaceRef = { kind: "session", id: "s1" };
    await store.write(project, "a.md", "a", alice);
    await store.write(chat, "notes.md", "n", alice);
    expect(await store.purge(project)).toBe(1);
    expect((await store.index(project)).files.size).toBe(0);
    expect(await store.revisions(project, "a.md")).toEqual([]);
    expect(text((await store.read(chat, "notes.md")).content)).toBe("n");
  });
});
