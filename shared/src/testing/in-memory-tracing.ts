import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { setTracingActive } from "../runtime/telemetry/tracer.js";

let exporter: InMemorySpanExporter | undefined;

/**
 * Tracing into memory for a test file: registers a provider once (the global API takes one per process)
 * and turns tracing on; `stop` turns it off again and forgets the spans.
 */
export function startInMemoryTracing(): { exporter: InMemorySpanExporter; stop(): void } {
  if (!exporter) {
    exporter = new InMemorySpanExporter();
    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
  }
  const spans = exporter;
  setTracingActive(true);
  return {
    exporter: spans,
    stop: () => {
      setTracingActive(false);
      spans.reset();
    },
  };
}
