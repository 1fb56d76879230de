import { diag, DiagLogLevel } from "@opentelemetry/api";
import type { Logger } from "../logger.js";
import type { ServiceName } from "../../wire/subjects.js";
import { tracingWanted, type TelemetryConfig } from "./telemetry-env.js";
import { setTracingActive } from "./tracer.js";

/**
 * The longest a stop waits for the last spans: the exporter retries an unreachable collector for longer
 * than a service's whole SIGTERM deadline (10 s).
 */
const shutdownBudgetMs = 2_000;

interface Tracing {
  enabled: boolean;
  /**
   * exports the spans still buffered and stops the provider; part of every service's SIGTERM drain. Never
   * rejects and takes at most 2 s: a collector that is down costs the spans, not a clean stop.
   */
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry provider of a service when a collector is configured (OTLP over HTTP, JSON
 * encoding, batched). Otherwise nothing is registered: the API stays the no-op one and `tracingActive()`
 * is false. The service name defaults to the service's own; OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES override it; the SDK reads the sampler (OTEL_TRACES_SAMPLER) and batch settings.
 * The SDK's own warnings (an unreachable collector) go to the service's log.
 */
export async function startTracing(service: ServiceName, config: TelemetryConfig, logger: Logger): Promise<Tracing> {
  if (!tracingWanted(config)) return { enabled: false, shutdown: async () => {} };
  // loaded only when wanted: a service without tracing never loads the SDK or the exporter
  const [{ OTLPTraceExporter }, { defaultResource, detectResources, envDetector, resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }, { ATTR_SERVICE_NAME }] =
    await Promise.all([
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/semantic-conventions"),
    ]);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }))
    .merge(detectResources({ detectors: [envDetector] }));
  // the exporter reads the OTEL_EXPORTER_OTLP_* endpoint, headers and timeout itself
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  diag.setLogger(
    {
      error: (message) => logger.warn({ otel: "error" }, message),
      warn: (message) => logger.warn({ otel: "warn" }, message),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  setTracingActive(true);
  return {
    enabled: true,
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      const giveUp = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), shutdownBudgetMs);
      });
      const outcome = await Promise.race([provider.shutdown().then(() => "exported" as const), giveUp]).catch((error: unknown) => {
        logger.warn({ err: error }, "the last spans could not be exported");
        return "failed" as const;
      });
      clearTimeout(timer);
      // a stopped provider exports nothing: helpers go back to making no spans at all
      setTracingActive(false);
      if (outcome === "late") logger.warn({ budgetMs: shutdownBudgetMs }, "the last spans were not exported in time");
    },
  };
}
