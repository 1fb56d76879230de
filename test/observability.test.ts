/**
 * Observability end to end (docs/operations.md "Observability"): the four services as processes export their spans over OTLP/HTTP
 * (JSON) to a receiver of our own. One chat with a tool call is one trace across all four services with
 * correct parent links; /metrics carries the agent label and the iteration histogram; no span and no log
 * line holds a file's content or the API key.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "@agent-orchestrator/testing/otlp-receiver";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

/** A line of bmad/custom/bundles/idea-studio/config.yaml: the file the model reads through the tool. */
const fileContent = "project_name: Idea Studio";
const apiKey = "test-key";
const clientTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const clientSpanId = "00f067aa0ba902b7";

let receiver: OtlpReceiver;
let system: TestSystem;
let telemetryEnv: Record<string, string>;

function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as { success: boolean; content?: string; error?: { message: string } };
    return { text: result.success ? `The file says:\n${result.content}` : `The tool said: ${result.error?.message}` };
  }
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  const path = said.startsWith("escape") ? "{bundle-root}/../../etc/passwd" : "{bundle-root}/config.yaml";
  return { toolCalls: [{ name: "read_file", arguments: { file_path: path } }] };
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  telemetryEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", METRICS_PORT: "0" };
  // export soon after a span ends instead of every 5 s
  system = await startTestSystem({ responder: respond, env: { ...telemetryEnv, OTEL_BSP_SCHEDULE_DELAY: "100" } });
}, 60_000);

afterAll(async () => {
  await system?.stop();
  await receiver?.close();
});

const chat = (message: string, headers: Record<string, string> = {}) =>
  fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ agent_id: "idea-coach", message }),
  });

const processOf = (name: ServiceProcess["name"]): ServiceProcess => system.processes.find((service) => service.name === name) as ServiceProcess;

/** Waits until the trace holds spans that satisfy `complete` (the services export in batches). */
async function waitForTrace(traceId: string, complete: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    if (complete(spans)) return spans;
    if (Date.now() > deadline) throw new Error(`trace incomplete: ${JSON.stringify(spans.map((span) => `${span.service}: ${span.name}`))}`);
    await sleep(100);
  }
}

async function metricsOf(name: ServiceProcess["name"]): Promise<string> {
  const line = await processOf(name).waitForLine((entry) => entry["msg"] === "metrics listening");
  return (await fetch(String(line["url"]))).text();
}

describe("observability across the four services", () => {
  /** the chat every case looks at, made once so that each case can run alone */
  let traced: { status: number; traceparent: string | null; body: { session_id: string; iterations: number } };
  let sessionId: string;

  beforeAll(async () => {
    const response = await chat("quote the config", { traceparent: `00-${clientTraceId}-${clientSpanId}-01` });
    traced = { status: response.status, traceparent: response.headers.get("traceparent"), body: (await response.json()) as typeof traced.body };
    sessionId = traced.body.session_id;
  });

  it("makes one chat with a tool call one trace, from the client's traceparent down to the tool-runner", async () => {
    expect(traced.status).toBe(200);
    expect(traced.body.iterations).toBe(2);
    // the gateway answers with its own span in the caller's trace
    expect(traced.traceparent).toMatch(new RegExp(`^00-${clientTraceId}-[0-9a-f]{16}-01$`));

    const spans = await waitForTrace(clientTraceId, (found) => {
      const names = new Set(found.map((span) => span.name));
      return ["POST /api/chat", "agent turn", "process read_file", "process agents-get"].every((name) => names.has(name)) &&
        found.filter((span) => span.name === "chat scripted").length === 2;
    });
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(["gateway", "orchestrator", "registry", "tool-runner"]));

    // every parent is in the trace; only the gateway's HTTP span hangs from the client's span
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const roots = spans.filter((span) => !byId.has(span.parentSpanId));
    expect(roots.map((span) => [span.service, span.name, span.parentSpanId])).toEqual([["gateway", "POST /api/chat", clientSpanId]]);
    const parentOf = (span: ReceivedSpan | undefined) => byId.get(span?.parentSpanId ?? "");
    const one = (name: string) => {
      const found = spans.filter((span) => span.name === name);
      expect(found, name).toHaveLength(1);
      return found[0] as ReceivedSpan;
    };

    const http = one("POST /api/chat");
    const publish = one(`send agent.run.request.${sessionId}`);
    const turn = one("agent turn");
    expect(parentOf(publish)).toBe(http);
    expect(parentOf(one("queue_wait"))).toBe(publish);
    expect(parentOf(turn)).toBe(publish);
    expect(turn).toMatchObject({ service: "orchestrator", attributes: { "gen_ai.agent.id": "idea-coach", "ao.turn.outcome": "completed", "ao.turn.iterations": 2, "ao.turn.tool_calls": 1 } });

    // the turn's work hangs from it through the span of the phase it runs in (turn/turn-phase.ts)
    const phases = spans.filter((span) => span.name.startsWith("turn ") && parentOf(span) === turn);
    expect(new Set(phases.map((span) => span.name))).toEqual(new Set(["turn entry", "turn admission", "turn hold", "turn preparation", "turn execution", "turn finish"]));
    const inTurn = (span: ReceivedSpan | undefined) => parentOf(span) === turn || phases.includes(parentOf(span) as ReceivedSpan);

    const registry = one("process agents-get");
    expect(parentOf(registry)).toMatchObject({ service: "orchestrator", name: "send registry.agents.get" });
    expect(inTurn(parentOf(registry))).toBe(true);
    expect(spans.filter((span) => span.name.startsWith("session_store ")).every(inTurn)).toBe(true);
    expect(spans.some((span) => span.name === "session_store update")).toBe(true);

    const models = spans.filter((span) => span.name === "chat scripted");
    for (const model of models) {
      expect(inTurn(model)).toBe(true);
      expect(model.attributes["gen_ai.request.model"]).toBe("scripted");
      expect(model.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(model.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(model.attributes["ao.model.time_to_first_token_ms"]).toEqual(expect.any(Number));
      expect(model.events).toContain("gen_ai.first_token");
    }

    // the model's call (start-up reads are the other read_file spans) and the tool-runner's run of it
    const tool = spans.find((span) => span.name === "execute_tool read_file" && span.attributes["ao.tool.path"] === "{bundle-root}/config.yaml" && inTurn(span));
    expect(tool?.attributes).toMatchObject({ "gen_ai.tool.name": "read_file", "ao.tool.outcome": "ok", "ao.tool.bytes": expect.any(Number) });
    const runs = spans.filter((span) => span.name === "process read_file" && parentOf(parentOf(span)) === tool);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ service: "tool-runner", attributes: { "ao.tool.outcome": "ok", "ao.tool.path": "{bundle-root}/config.yaml" } });
  });

  it("writes the trace's ids on the turn's log lines and one line at its end with outcome, iterations, tool calls, tokens and duration", async () => {
    const line = await processOf("orchestrator").waitForLine((entry) => entry["msg"] === "turn completed" && entry["sessionId"] === sessionId);
    expect(line).toMatchObject({
      trace_id: clientTraceId,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      agentId: "idea-coach",
      outcome: "completed",
      iterations: 2,
      toolCalls: 1,
      durationMs: expect.any(Number),
      usage: { total_tokens: expect.any(Number) },
    });
  });

  it("counts turns by agent, iterations in a histogram, tool calls and sandbox denials on the services' /metrics", async () => {
    const denied = (await (await chat("escape the bundle")).json()) as { session_id: string };
    const orchestrator = await metricsOf("orchestrator");
    expect(orchestrator).toMatch(/^ao_turns_total\{agent="idea-coach",outcome="completed"\} 2$/m);
    expect(orchestrator).toMatch(/^ao_turn_iterations_bucket\{le="2",agent="idea-coach"\} 2$/m);
    expect(orchestrator).toMatch(/^ao_model_call_seconds_count\{model="scripted",outcome="ok"\} 4$/m);
    expect(orchestrator).toMatch(/^ao_tool_call_seconds_count\{tool="read_file",outcome="ok"\} \d+$/m);
    expect(orchestrator).toMatch(/^ao_queue_wait_seconds_count 2$/m);

    const toolRunner = await metricsOf("tool-runner");
    expect(toolRunner).toMatch(/^ao_tool_executions_total\{tool="read_file",outcome="ok"\} \d+$/m);
    expect(toolRunner).toMatch(/^ao_sandbox_denials_total\{code="[A-Z_]+"\} 1$/m);
    // the denial is a WARN line with the session id
    const warning = await processOf("tool-runner").waitForLine((entry) => entry["level"] === 40 && entry["session_id"] === denied.session_id);
    expect(warning["msg"]).toContain("Access denied");
  });

  it("flushes its spans on SIGTERM, and no span or log line holds a file's content or the API key", async () => {
    // a system of its own, so the others keep theirs whichever order the cases run in; its spans wait in the
    // batch for a minute, so only the flush at SIGTERM can have sent them
    const own = await startTestSystem({ responder: respond, env: { ...telemetryEnv, OTEL_BSP_SCHEDULE_DELAY: "60000" } });
    onTestFinished(() => own.stop());
    const ownTraceId = "5cf92f3577b34da6a3ce929d0e0e4737";
    const response = await fetch(`${own.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${ownTraceId}-${clientSpanId}-01` },
      body: JSON.stringify({ agent_id: "idea-coach", message: "quote the config" }),
    });
    expect(response.status).toBe(200);
    const codes = await Promise.all(own.processes.map((service) => service.stop("SIGTERM")));
    expect(codes).toEqual([0, 0, 0, 0]);
    const flushed = receiver.spans.filter((span) => span.traceId === ownTraceId);
    expect(flushed.find((span) => span.name === "agent turn")?.attributes["gen_ai.agent.id"]).toBe("idea-coach");
    const logged = own.processes.flatMap((service) => service.lines.map((line) => JSON.stringify(line))).join("\n");
    expect(logged).toContain("turn completed");
    // the SDK had nothing to complain about (its warnings are logged with an `otel` field)
    expect(own.processes.flatMap((service) => service.lines.filter((line) => "otel" in line))).toEqual([]);
    const exported = receiver.bodies.join("\n");
    for (const secret of [fileContent, apiKey]) {
      expect(exported).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
  });
});
