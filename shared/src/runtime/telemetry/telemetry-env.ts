import { z } from "zod";

const optionalUrl = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()))
  .pipe(z.url().optional());

/**
 * The telemetry settings every service reads: the standard OpenTelemetry variables (the SDK itself reads
 * the rest, such as OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and OTEL_BSP_*) and the metrics endpoint.
 */
export const telemetryEnvSchema = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.describe(
    "OTLP/HTTP collector base URL, e.g. `http://127.0.0.1:4318`; spans go to `<url>/v1/traces`. Unset: no tracing at all (docs/operations.md \"Traces\")",
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl.describe("the full traces URL; wins over OTEL_EXPORTER_OTLP_ENDPOINT"),
  // only the JSON encoding is built in (no protobuf or gRPC dependency): any other value is refused at start
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(["http/json"])
    .optional()
    .describe("the only encoding built in is `http/json` (the default); any other value stops the service at start"),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(["http/json"])
    .optional()
    .describe("as OTEL_EXPORTER_OTLP_PROTOCOL, for traces only"),
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "none"]).optional().describe("`none` turns tracing off even with an endpoint"),
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).optional().describe("`true` turns tracing off even with an endpoint"),
  METRICS_PORT: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === "" ? undefined : value))
    .pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional())
    .describe(
      "orchestrator and tool-runner: a port for `GET /metrics` (Prometheus text); unset: no metrics endpoint; 0: a free port, logged as `metrics listening`. The gateway serves /metrics on PORT instead. Under `npm start` the orchestrator gets METRICS_PORT and the tool-runner METRICS_PORT + 1",
    ),
  METRICS_HOST: z
    .string()
    .min(1)
    .default("127.0.0.1")
    .describe("orchestrator and tool-runner: where the metrics endpoint listens; 0.0.0.0 in a container that Prometheus scrapes from outside"),
});
export type TelemetryConfig = z.infer<typeof telemetryEnvSchema>;

/** Tracing is on only when a collector is named and nothing turns it off. */
export function tracingWanted(config: TelemetryConfig): boolean {
  const endpoint = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint !== undefined && config.OTEL_TRACES_EXPORTER !== "none" && config.OTEL_SDK_DISABLED !== "true";
}
