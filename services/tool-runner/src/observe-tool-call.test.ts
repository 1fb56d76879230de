import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inSpan } from "@agent-orchestrator/shared/runtime";
import { startInMemoryTracing, metricValue } from "@agent-orchestrator/shared/testing";
import { observeToolCall } from "./observe-tool-call.js";
import { toolRunnerMetrics } from "./tool-runner-metrics.js";

let tracing: ReturnType<typeof startInMemoryTracing>;
beforeEach(() => {
  tracing = startInMemoryTracing();
  toolRunnerMetrics.registry.resetMetrics();
});
afterEach(() => tracing.stop());

const value = (name: string, labels: Record<string, string>) => metricValue(toolRunnerMetrics.registry, name, labels);
const denied = (code: "PATH_OUTSIDE_ROOT" | "FILE_NOT_FOUND") => Promise.resolve({ success: false as const, error: { code, message: "Access denied" } });

describe("observeToolCall", () => {
  it("counts a read by tool and outcome, with its bytes, and puts outcome, size and virtual path on the span, never the content", async () => {
    const read = { success: true as const, path: "{bundle-root}/config.yaml", content: "project_name: Secret", size: 20 };
    await inSpan("process read_file", {}, () => observeToolCall("read_file", Promise.resolve(read)));
    expect(await value("ao_tool_executions_total", { tool: "read_file", outcome: "ok" })).toBe(1);
    expect(await value("ao_tool_bytes_total", { tool: "read_file" })).toBe(20);
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span?.attributes).toEqual({ "gen_ai.tool.name": "read_file", "ao.tool.outcome": "ok", "ao.tool.bytes": 20, "ao.tool.path": "{bundle-root}/config.yaml" });
  });

  it("counts a sandbox denial by its rule as a security signal, and a missing file only as an outcome", async () => {
    await inSpan("process read_file", {}, () => observeToolCall("read_file", denied("PATH_OUTSIDE_ROOT")));
    await observeToolCall("read_file", denied("FILE_NOT_FOUND"));
    expect(await value("ao_sandbox_denials_total", { code: "PATH_OUTSIDE_ROOT" })).toBe(1);
    expect(await value("ao_sandbox_denials_total", { code: "FILE_NOT_FOUND" })).toBeUndefined();
    expect(await value("ao_tool_executions_total", { tool: "read_file", outcome: "FILE_NOT_FOUND" })).toBe(1);
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({ "ao.tool.outcome": "PATH_OUTSIDE_ROOT", "error.type": "PATH_OUTSIDE_ROOT" });
    expect(span?.status).toMatchObject({ code: 2 });
  });
});
