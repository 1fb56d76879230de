import { Counter, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { capturingLogger } from "../../testing/capturing-logger.js";
import { startMetricsServer } from "./metrics-server.js";

describe("startMetricsServer", () => {
  it("serves the registry on GET /metrics, on a free port for port 0, and nothing else", async () => {
    const registry = new Registry();
    new Counter({ name: "ao_test_total", help: "a test counter", registers: [registry] }).inc(3);
    const { lines, logger } = capturingLogger();
    const server = await startMetricsServer({ registry, port: 0, host: "127.0.0.1", logger });
    try {
      expect(lines).toContainEqual(expect.objectContaining({ msg: "metrics listening", url: server.url }));
      const response = await fetch(server.url);
      expect(response.headers.get("content-type")).toBe(registry.contentType);
      expect(await response.text()).toMatch(/^ao_test_total 3$/m);
      expect((await fetch(server.url.replace("/metrics", "/"))).status).toBe(404);
      expect((await fetch(server.url, { method: "POST" })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
