import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { startInMemoryTracing, metricValue } from "@agent-orchestrator/shared/testing";
import { ModelCallTelemetry } from "./model-call-telemetry.js";
import { orchestratorMetrics } from "../orchestrator-metrics.js";

let tracing: ReturnType<typeof startInMemoryTracing>;
beforeEach(() => {
  tracing = startInMemoryTracing();
  orchestratorMetrics.registry.resetMetrics();
});
afterEach(() => tracing.stop());

const usage = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 };
const count = (name: string, labels: Record<string, string>) => metricValue(orchestratorMetrics.registry, name, labels);

describe("ModelCallTelemetry", () => {
  it("records the model, token counts, finish reason and the first text or tool-call chunk as the first token", async () => {
    const call = new ModelCallTelemetry("gpt-test");
    call.chunk({ choices: [{ delta: { content: "" } }] });
    call.chunk({ choices: [] });
    call.chunk({ choices: [{ delta: { tool_calls: [{ index: 0 }] } }] });
    call.chunk({ choices: [{ delta: { content: "later" } }] });
    call.end(usage, "tool_calls");

    const [span] = tracing.exporter.getFinishedSpans();
    expect(span?.name).toBe("chat gpt-test");
    expect(span?.attributes).toMatchObject({
      "gen_ai.request.model": "gpt-test",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "ao.model.time_to_first_token_ms": expect.any(Number),
    });
    expect(span?.events.map((event) => event.name)).toEqual(["gen_ai.first_token"]);
    expect(await count("ao_model_time_to_first_token_seconds", { model: "gpt-test" })).toBe(1);
    expect(await count("ao_model_call_seconds", { model: "gpt-test", outcome: "ok" })).toBe(1);
    expect(await count("ao_model_tokens_total", { model: "gpt-test", kind: "prompt" })).toBe(120);
  });

  it("counts the prompt tokens the provider's cache served, in the span and the token metric", async () => {
    const call = new ModelCallTelemetry("gpt-test");
    call.end({ ...usage, cached_prompt_tokens: 80 }, "stop");
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 120, "gen_ai.usage.cache_read.input_tokens": 80 });
    expect(await count("ao_model_tokens_total", { model: "gpt-test", kind: "cached_prompt" })).toBe(80);
  });

  it("marks a failed call with its error code, in the span and the latency metric", async () => {
    const call = new ModelCallTelemetry("gpt-test");
    const error = call.failed(new AppError("MODEL_RATE_LIMITED", "slow down"));
    call.end({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, null);
    expect(error.code).toBe("MODEL_RATE_LIMITED");
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span?.attributes["error.type"]).toBe("MODEL_RATE_LIMITED");
    expect(span?.status).toMatchObject({ code: 2, message: "MODEL_RATE_LIMITED" });
    expect(span?.events).toEqual([]);
    expect(await count("ao_model_call_seconds", { model: "gpt-test", outcome: "MODEL_RATE_LIMITED" })).toBe(1);
  });
});
