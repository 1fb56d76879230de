import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, inject } from "vitest";

export interface ScratchStreams {
  /** the test file's connection to the test NATS server, open from `beforeAll` to `afterAll` */
  connection(): NatsConnection;
  /** names a JetStream stream (a KV bucket's is `KV_<bucket>`) to delete when the file's tests are done */
  track(stream: string): string;
}

/**
 * For a test file whose tests make their own streams on the shared test server: one connection for the
 * file, and every stream it tracked deleted (even one a test failed to create) before the connection drains.
 * Call it at the top of the file.
 */
export function scratchStreams(): ScratchStreams {
  let connection: NatsConnection | undefined;
  const streams: string[] = [];
  beforeAll(async () => {
    connection = await connect({ servers: inject("natsUrl") });
  });
  afterAll(async () => {
    if (!connection) return;
    const manager = await connection.jetstreamManager();
    await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
    await connection.drain();
  });
  return {
    connection: () => {
      if (!connection) throw new Error("scratchStreams: the connection opens in beforeAll");
      return connection;
    },
    track: (stream) => {
      streams.push(stream);
      return stream;
    },
  };
}
