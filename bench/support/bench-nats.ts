import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findNatsServerBinary, natsServerMissingHelp, startLocalNats, type LocalNats } from "../../scripts/lib/local-nats.js";

/** A private nats-server for the benchmark run, which can be restarted in place (measure 10). */
export interface BenchNats {
  url: string;
  /** the server process (changes on restart) */
  readonly pid: number;
  /** stops the server and starts it again on the same port with the same JetStream store; resolves when it listens */
  restart(): Promise<{ stoppedAt: number; readyAt: number }>;
  stop(): Promise<void>;
}

/**
 * Starts nats-server with JetStream in a temp folder of its own, on a free port. Never a shared server:
 * other engineers' tests run on this machine, and a benchmark must not measure their traffic.
 */
export async function startBenchNats(): Promise<BenchNats> {
  if (!findNatsServerBinary()) throw new Error(natsServerMissingHelp);
  const storeDir = await mkdtemp(join(tmpdir(), "bench-nats-"));
  let server: LocalNats = await startLocalNats({ storeDir });
  const port = Number(new URL(server.url).port);
  return {
    url: server.url,
    get pid() {
      return server.process.pid ?? -1;
    },
    async restart() {
      await server.stop();
      const stoppedAt = performance.now();
      server = await startLocalNats({ storeDir, port });
      return { stoppedAt, readyAt: performance.now() };
    },
    async stop() {
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
