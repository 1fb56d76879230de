import { Counter, Registry } from "prom-client";

/** The tool-runner's Prometheus metrics, served on METRICS_PORT (metrics-server.ts). */
export const toolRunnerMetrics = (() => {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    toolCalls: new Counter({
      name: "ao_tool_executions_total",
      help: "Tool calls answered by this tool-runner, by tool and outcome (ok or the error code)",
      labelNames: ["tool", "outcome"],
      registers,
    }),
    denials: new Counter({
      name: "ao_sandbox_denials_total",
      help: "Calls the sandbox refused, by rule (a security signal: a model or a prompt trying to leave its roots)",
      labelNames: ["code"],
      registers,
    }),
    bytes: new Counter({ name: "ao_tool_bytes_total", help: "Bytes of file content read or written, by tool", labelNames: ["tool"], registers }),
  };
})();
