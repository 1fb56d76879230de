/**
 * The sample dashboard (deploy/grafana/agent-orchestrator.json) queries only metrics that the services
 * register, so renaming a metric without the dashboard fails here.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GatewayMetrics } from "@agent-orchestrator/gateway";
import { orchestratorMetrics } from "@agent-orchestrator/orchestrator";
import { toolRunnerMetrics } from "@agent-orchestrator/tool-runner";
import { repoRoot } from "@agent-orchestrator/testing/service-processes";

describe("the Grafana dashboard", () => {
  it("queries only metrics the gateway, orchestrator and tool-runner register", async () => {
    const dashboard = await readFile(join(repoRoot, "deploy/grafana/agent-orchestrator.json"), "utf8");
    const queried = new Set([...dashboard.matchAll(/\b(ao_[a-z_]+?)(?:_bucket|_count|_sum)?\b[{[]/g)].map((match) => match[1]));
    const registered = new Set(
      [new GatewayMetrics().registry, orchestratorMetrics.registry, toolRunnerMetrics.registry].flatMap((registry) =>
        registry.getMetricsAsArray().map((metric) => metric.name),
      ),
    );
    expect(queried.size).toBeGreaterThan(5);
    expect([...queried].filter((name) => !registered.has(name as string))).toEqual([]);
  });
});
