/**
 * Finds a NATS server for the tests (docs/design.md "Testing"): NATS_URL if set; else a nats-server binary started on a
 * free port with JetStream in a temp dir; else testcontainers when a container runtime answers; else a
 * clear failure saying how to get one. Never a server the tests did not start, unless NATS_URL says so.
 *
 * A server started here runs the production permission config (deploy/nats/nats-server.conf) with the
 * test passwords below, so every test that starts services as processes exercises the permissions. An
 * external NATS_URL is used as it is: the harness cannot impose the config on it.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findNatsServerBinary, natsServerMissingHelp, startLocalNats, type LocalNats } from "./local-nats.js";
import { natsAdminUser, natsConfigFile, natsUsers, serverPasswordEnv, serviceCredentialsEnv, type NatsPasswords, type NatsUser } from "./nats-users.js";

export interface TestNats {
  /** the server's URL, without credentials */
  url: string;
  kind: "external" | "binary" | "container";
  /** true when the server runs the permission config with `testNatsPasswords` */
  permissions: boolean;
  /** the server's log lines (binary only; empty otherwise) */
  logLines: string[];
  /** stops the server and starts it again on the same port and store (binary only) */
  restart(downtimeMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TestNatsOptions {
  /**
   * Lets a client without credentials in as `admin` (`no_auth_user`). Only the shared server of the
   * whole run does this, for in-process tests that play several services at once on their own subject
   * prefixes; processes started by `startSystem` still connect as their own users.
   */
  anonymousAdmin?: boolean;
}

/**
 * Test-only passwords. They are fixed, so process launchers in the tests know them without being told;
 * they guard servers that listen on 127.0.0.1 and live for one test file.
 */
export const testNatsPasswords: NatsPasswords = Object.fromEntries(
  natsUsers.map((user) => [user, `test${user.replace(/-/g, "")}password0000`]),
) as NatsPasswords;

/** NATS_USER / NATS_PASSWORD of one user on a harness server. */
export const testNatsCredentials = (user: NatsUser) => serviceCredentialsEnv(user, testNatsPasswords);

/** True when NATS_URL names an external server, whose users the harness does not know. */
export const natsIsExternal = (): boolean => Boolean(process.env["NATS_URL"]);

export async function startTestNats(options: TestNatsOptions = {}): Promise<TestNats> {
  const external = process.env["NATS_URL"];
  if (external) {
    const notOurs = async () => {
      throw new Error("cannot restart an external NATS server (NATS_URL)");
    };
    return { url: external, kind: "external", permissions: false, logLines: [], restart: notOurs, stop: async () => {} };
  }

  const env = serverPasswordEnv(testNatsPasswords);
  if (findNatsServerBinary()) {
    const storeDir = await mkdtemp(join(tmpdir(), "ao-nats-"));
    const configFile = await testConfigFile(storeDir, options);
    // one log across restarts, so a test reads what happened before and after
    const logLines: string[] = [];
    let server: LocalNats = await startLocalNats({ storeDir, configFile, env, logLines });
    return {
      url: server.url,
      kind: "binary",
      permissions: true,
      logLines,
      async restart(downtimeMs = 0) {
        const { port } = server;
        await server.stop();
        if (downtimeMs > 0) await new Promise((resolve) => setTimeout(resolve, downtimeMs));
        server = await startLocalNats({ storeDir, configFile, env, port, logLines });
      },
      async stop() {
        await server.stop();
        await rm(storeDir, { recursive: true, force: true });
      },
    };
  }

  try {
    const { GenericContainer, Wait } = await import("testcontainers");
    const config = await readFile(natsConfigFile, "utf8");
    const container = await new GenericContainer("nats:2.10-alpine")
      .withCopyContentToContainer([{ content: withAnonymousAdmin(config, options), target: "/etc/nats/test.conf" }])
      .withEnvironment(env)
      .withCommand(["-c", "/etc/nats/test.conf", "-js", "-sd", "/data"])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    return {
      url: `nats://${container.getHost()}:${container.getMappedPort(4222)}`,
      kind: "container",
      permissions: true,
      logLines: [],
      restart: async () => {
        throw new Error("restart is only supported for a nats-server binary");
      },
      stop: async () => {
        await container.stop();
      },
    };
  } catch (error) {
    if (!/container runtime/i.test(String(error))) throw error;
  }
  throw new Error(natsServerMissingHelp);
}

/** The production config, or a copy of it in the store folder that also lets anonymous clients in as admin. */
async function testConfigFile(storeDir: string, options: TestNatsOptions): Promise<string> {
  if (!options.anonymousAdmin) return natsConfigFile;
  const file = join(storeDir, "nats-server.conf");
  await writeFile(file, withAnonymousAdmin(await readFile(natsConfigFile, "utf8"), options));
  return file;
}

function withAnonymousAdmin(config: string, options: TestNatsOptions): string {
  return options.anonymousAdmin ? `${config}\n# test harness only: clients without credentials are ${natsAdminUser}\nno_auth_user: ${natsAdminUser}\n` : config;
}
