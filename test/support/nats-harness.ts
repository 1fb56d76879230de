/**
 * Finds a NATS server for the tests (DESIGN §6): NATS_URL if set; else a nats-server binary started on a
 * free port with JetStream in a temp dir; else testcontainers when a container runtime answers; else a
 * clear failure saying how to get one. Never a server the tests did not start, unless NATS_URL says so.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findNatsServerBinary, natsServerMissingHelp, startLocalNats } from "../../scripts/lib/local-nats.js";

export interface TestNats {
  url: string;
  kind: "external" | "binary" | "container";
  stop(): Promise<void>;
}

export async function startTestNats(): Promise<TestNats> {
  const external = process.env["NATS_URL"];
  if (external) return { url: external, kind: "external", stop: async () => {} };

  if (findNatsServerBinary()) {
    const storeDir = await mkdtemp(join(tmpdir(), "ao-nats-"));
    const server = await startLocalNats({ storeDir });
    return {
      url: server.url,
      kind: "binary",
      stop: async () => {
        await server.stop();
        await rm(storeDir, { recursive: true, force: true });
      },
    };
  }

  try {
    const { GenericContainer, Wait } = await import("testcontainers");
    const container = await new GenericContainer("nats:2.10-alpine")
      .withCommand(["-js"])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    return {
      url: `nats://${container.getHost()}:${container.getMappedPort(4222)}`,
      kind: "container",
      stop: async () => {
        await container.stop();
      },
    };
  } catch (error) {
    if (!/container runtime/i.test(String(error))) throw error;
  }
  throw new Error(natsServerMissingHelp);
}
