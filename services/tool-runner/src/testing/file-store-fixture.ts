import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { inject } from "vitest";
import { FileStore } from "../store/file-store.js";
import type { SpaceQuota } from "../store/space-quota.js";

/** A quota no test reaches unless it sets its own. */
export const fixtureQuota: SpaceQuota = { maxBytes: 1 << 30, maxFiles: 100_000 };

/** A file store of its own on the test NATS server (buckets named after a fresh prefix), and how to remove it. */
export interface TestFileStore {
  files: FileStore;
  connection: NatsConnection;
  /** the subject prefix the buckets are named after (`fs1a2b3c4d.`) */
  prefix: string;
  /** another FileStore on the same buckets with a cache of its own: a second tool-runner replica */
  replica(): Promise<FileStore>;
  close(): Promise<void>;
}

export async function openTestFileStore(quotas: { project?: SpaceQuota; session?: SpaceQuota } = {}): Promise<TestFileStore> {
  const connection = await connect({ servers: inject("natsUrl") });
  const lead = `fs${randomUUID().slice(0, 8)}`;
  const open = () =>
    FileStore.open(connection.jetstream(), {
      flush: () => connection.flush(),
      subjectPrefix: `${lead}.`,
      replicas: 1,
      cacheBytes: 16 << 20,
      quotas: { project: quotas.project ?? fixtureQuota, session: quotas.session ?? fixtureQuota },
      maxIndexBytes: 1 << 20,
    });
  const files = await open();
  return {
    files,
    connection,
    prefix: `${lead}.`,
    replica: open,
    async close() {
      const manager = await connection.jetstreamManager();
      const streams = [`KV_${lead}_file_index`, `KV_${lead}_file_revisions`, `OBJ_${lead}_file_contents`];
      await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
      await connection.drain();
    },
  };
}
