export * from "./metrics-server.js";
export * from "./nats-spans.js";
export * from "./nats-trace-headers.js";
export * from "./spans.js";
export * from "./telemetry-env.js";
export * from "./trace-log-fields.js";
export * from "./tracer.js";
export * from "./tracing-setup.js";
