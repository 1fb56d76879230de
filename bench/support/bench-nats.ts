import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findNatsServerBinary, natsServerMissingHelp, startLocalNats, type LocalNats } from "@agent-orchestrator/testing/local-nats";
import { natsAdminUser, natsConfigFile, serverPasswordEnv } from "@agent-orchestrator/testing/nats-users";
import { testNatsPasswords } from "@agent-orchestrator/testing/nats-harness";

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
 * other engineers' tests run on this machine, and a benchmark must not measure their traffic. It runs the
 * production permission config (deploy/nats) with the test harness's passwords, so the service processes
 * of measures 3 and 5 connect as their own users, as in production; clients without credentials (the
 * services started in this process on their own subject prefixes, which the per-service rules do not
 * name) come in as admin, as in the test harness.
 */
export async function startBenchNats(): Promise<BenchNats> {
  if (!findNatsServerBinary()) throw new Error(natsServerMissingHelp);
  const storeDir = await mkdtemp(join(tmpdir(), "bench-nats-"));
  const configFile = join(storeDir, "nats-server.conf");
  await writeFile(configFile, `${await readFile(natsConfigFile, "utf8")}\n# benchmark only: clients without credentials are ${natsAdminUser}\nno_auth_user: ${natsAdminUser}\n`);
  const env = serverPasswordEnv(testNatsPasswords);
  let server: LocalNats = await startLocalNats({ storeDir, configFile, env });
  return {
    url: server.url,
    get pid() {
      return server.process.pid ?? -1;
    },
    async restart() {
      const { port } = server;
      await server.stop();
      const stoppedAt = performance.now();
      server = await startLocalNats({ storeDir, configFile, env, port });
      return { stoppedAt, readyAt: performance.now() };
    },
    async stop() {
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
