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
  /** the collector's base URL; traces go to `<endpoint>/v1/traces` */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  /** the full traces URL; wins over OTEL_EXPORTER_OTLP_ENDPOINT */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  // only the JSON encoding is built in (no protobuf or gRPC dependency): any other value is refused at start
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(["http/json"]).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(["http/json"]).optional(),
  /** `none` turns tracing off even with an endpoint */
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "none"]).optional(),
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).optional(),
  /** a port for `GET /metrics` (Prometheus text); unset: no metrics endpoint. The gateway serves /metrics on PORT instead. */
  METRICS_PORT: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === "" ? undefined : value))
    .pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional()),
  /** where the metrics endpoint listens; 0.0.0.0 in a container that Prometheus scrapes from outside */
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
});
export type TelemetryConfig = z.infer<typeof telemetryEnvSchema>;

/** Tracing is on only when a collector is named and nothing turns it off. */
export function tracingWanted(config: TelemetryConfig): boolean {
  const endpoint = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint !== undefined && config.OTEL_TRACES_EXPORTER !== "none" && config.OTEL_SDK_DISABLED !== "true";
}
