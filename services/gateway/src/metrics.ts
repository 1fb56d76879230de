import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RunEvent } from "@agent-orchestrator/shared/wire";

/** The gateway's Prometheus metrics, fed by the requests it serves and the turn events it relays. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "ao_http_requests_total",
    help: "HTTP requests by method, route and status",
    labelNames: ["method", "route", "status"],
    registers: [this.registry],
  });
  readonly activeTurns = new Gauge({ name: "ao_active_turns", help: "Turns this gateway is relaying now", registers: [this.registry] });
  readonly toolCalls = new Counter({
    name: "ao_tool_calls_total",
    help: "Tool calls by tool and outcome (ok or the error code)",
    labelNames: ["tool", "outcome"],
    registers: [this.registry],
  });
  readonly firstToken = new Histogram({
    name: "ao_model_first_token_seconds",
    help: "From the start of a turn to the model's first text",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [this.registry],
  });
  readonly turnDuration = new Histogram({
    name: "ao_turn_duration_seconds",
    help: "Whole turns, by outcome",
    labelNames: ["outcome"],
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly tokens = new Counter({ name: "ao_tokens_total", help: "Model tokens by kind", labelNames: ["kind"], registers: [this.registry] });
  readonly webSockets = new Gauge({ name: "ao_websocket_connections", help: "WebSockets open on this gateway, signed in or not", registers: [this.registry] });
  readonly watches = new Gauge({ name: "ao_websocket_watches", help: "Session watches open on this gateway's WebSockets", registers: [this.registry] });
  readonly auditLost = new Counter({
    name: "ao_audit_records_lost_total",
    help: "Audit records this gateway could not store in the AUDIT stream (each is logged as `audit record lost`; docs/audit.md)",
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: "ao_limit_refusals_total",
    help: "Requests, upgrades and messages refused by a limit of the gateway, by limit (rate, sign_in, ws_total, ws_address, ws_user, ws_auth_timeout, ws_watches)",
    labelNames: ["limit"],
    registers: [this.registry],
  });

  /** Passes a turn's events through unchanged, counting what they say. */
  async *observe(events: AsyncIterable<RunEvent>): AsyncGenerator<RunEvent> {
    const started = performance.now();
    let sawText = false;
    let outcome = "abandoned";
    this.activeTurns.inc();
    try {
      for await (const event of events) {
        // a subagent's text (relayed under its call) is not the answer's first token
        if (event.type === "delta" && event.parent_call_id === undefined && !sawText) {
          sawText = true;
          this.firstToken.observe((performance.now() - started) / 1000);
        } else if (event.type === "tool_result") {
          this.toolCalls.inc({ tool: event.name, outcome: event.success ? "ok" : (event.error_code ?? "error") });
        } else if (event.type === "done") {
          outcome = "done";
          this.tokens.inc({ kind: "prompt" }, event.usage.prompt_tokens);
          this.tokens.inc({ kind: "completion" }, event.usage.completion_tokens);
        } else if (event.type === "error") {
          outcome = event.error.code;
        } else if (event.type === "approval_required") {
          outcome = "awaiting_approval";
        }
        yield event;
      }
    } finally {
      this.activeTurns.dec();
      this.turnDuration.observe({ outcome }, (performance.now() - started) / 1000);
    }
  }
}
