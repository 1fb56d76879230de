import { once } from "node:events";
import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { inSpan } from "./spans.js";
import { telemetryEnvSchema } from "./telemetry-env.js";
import { tracingActive } from "./tracer.js";
import { startTracing } from "./tracing-setup.js";
import { capturingLogger } from "../../testing/capturing-logger.js";

/** A port nothing listens on any more. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("startTracing", () => {
  it("registers nothing without an endpoint", async () => {
    const { logger } = capturingLogger();
    const tracing = await startTracing("gateway", telemetryEnvSchema.parse({}), logger);
    expect(tracing.enabled).toBe(false);
    expect(tracingActive()).toBe(false);
    await tracing.shutdown();
  });

  it("stops cleanly and soon when the collector is down: the lost spans are a warning, not a failed or stuck stop", async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    // the exporter reads its endpoint from the environment itself, as in a service
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
    const { lines, logger } = capturingLogger();
    const tracing = await startTracing("tool-runner", telemetryEnvSchema.parse({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), logger);
    expect(tracing.enabled).toBe(true);
    expect(tracingActive()).toBe(true);
    await inSpan("lost", {}, async () => {});
    await expect(tracing.shutdown()).resolves.toBeUndefined();
    expect(lines.some((line) => line["level"] === 40)).toBe(true);
    expect(tracingActive()).toBe(false);
  });
});
