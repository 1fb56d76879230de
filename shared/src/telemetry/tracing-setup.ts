import type { ServiceName } from "../subjects.js";
import { tracingWanted, type TelemetryConfig } from "./telemetry-env.js";
import { setTracingActive } from "./tracer.js";

export interface Tracing {
  enabled: boolean;
  /** exports the spans still buffered and stops the provider; part of every service's SIGTERM drain */
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry provider of a service when a collector is configured (OTLP over HTTP, JSON
 * encoding, batched). Otherwise nothing is registered: the API stays the no-op one and `tracingActive()`
 * is false. The service name defaults to the service's own; OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES override it; the SDK reads the sampler (OTEL_TRACES_SAMPLER) and batch settings.
 */
export async function startTracing(service: ServiceName, config: TelemetryConfig): Promise<Tracing> {
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
  setTracingActive(true);
  return {
    enabled: true,
    shutdown: () => provider.shutdown(),
  };
}
