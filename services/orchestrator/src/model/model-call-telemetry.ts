import { SpanKind } from "@opentelemetry/api";
import { errorType, markFailed, startSpan } from "@agent-orchestrator/shared/runtime";
import { type Usage } from "@agent-orchestrator/shared/wire";
import { orchestratorMetrics } from "../orchestrator-metrics.js";

/** What a streamed chunk shows of itself: enough to tell when the first token came. */
interface ChunkLike {
  choices: ReadonlyArray<{ delta: { content?: string | null; tool_calls?: unknown } }>;
}

/**
 * One model call's span and metrics (OpenTelemetry GenAI conventions): the model, token counts, finish
 * reason, time to the first text or tool-call chunk, duration and outcome. Never the prompt or the answer.
 */
export class ModelCallTelemetry {
  private readonly started = performance.now();
  private readonly span;
  private firstTokenMs: number | undefined;
  private outcome = "ok";

  constructor(private readonly model: string) {
    this.span = startSpan(`chat ${model}`, {
      kind: SpanKind.CLIENT,
      attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": model },
    });
  }

  /** Called for every streamed chunk; the first that carries text or a tool call is the first token. */
  chunk(chunk: ChunkLike): void {
    if (this.firstTokenMs !== undefined) return;
    const delta = chunk.choices[0]?.delta;
    if (!delta?.content && !delta?.tool_calls) return;
    this.firstTokenMs = performance.now() - this.started;
    this.span.addEvent("gen_ai.first_token");
    this.span.setAttribute("ao.model.time_to_first_token_ms", Math.round(this.firstTokenMs));
    orchestratorMetrics.timeToFirstToken.observe({ model: this.model }, this.firstTokenMs / 1000);
  }

  /** Records the call's error code and gives the error back, to be thrown. */
  failed<E>(error: E): E {
    this.outcome = errorType(error);
    return markFailed(this.span, error);
  }

  /** Ends the call: tokens as the model reported them (zero when its usage chunk never came). */
  end(usage: Usage, finishReason: string | null): void {
    orchestratorMetrics.modelCalls.observe({ model: this.model, outcome: this.outcome }, (performance.now() - this.started) / 1000);
    orchestratorMetrics.modelTokens.inc({ model: this.model, kind: "prompt" }, usage.prompt_tokens);
    orchestratorMetrics.modelTokens.inc({ model: this.model, kind: "completion" }, usage.completion_tokens);
    if (usage.cached_prompt_tokens) orchestratorMetrics.modelTokens.inc({ model: this.model, kind: "cached_prompt" }, usage.cached_prompt_tokens);
    this.span.setAttributes({
      "gen_ai.usage.input_tokens": usage.prompt_tokens,
      "gen_ai.usage.output_tokens": usage.completion_tokens,
      ...(usage.cached_prompt_tokens ? { "gen_ai.usage.cache_read.input_tokens": usage.cached_prompt_tokens } : {}),
      ...(finishReason ? { "gen_ai.response.finish_reasons": [finishReason] } : {}),
    });
    this.span.end();
  }
}
