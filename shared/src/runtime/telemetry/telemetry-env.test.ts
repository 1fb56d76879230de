import { describe, expect, it } from "vitest";
import { parseEnv } from "../env-config.js";
import { telemetryEnvSchema, tracingWanted } from "./telemetry-env.js";

const parse = (env: Record<string, string>) => {
  const result = parseEnv(telemetryEnvSchema, env);
  if (!result.ok) throw new Error(result.message);
  return result.value;
};

describe("telemetryEnvSchema", () => {
  it("turns tracing on only with an endpoint, and off again with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED", () => {
    expect(tracingWanted(parse({}))).toBe(false);
    expect(tracingWanted(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }))).toBe(true);
    expect(tracingWanted(parse({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }))).toBe(true);
    expect(tracingWanted(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }))).toBe(false);
    expect(tracingWanted(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }))).toBe(false);
    expect(tracingWanted(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: " " }))).toBe(false);
  });

  it("refuses an encoding it does not ship and an endpoint that is not a URL, naming the variable", () => {
    expect(parseEnv(telemetryEnvSchema, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toMatchObject({ ok: false, message: expect.stringContaining("OTEL_EXPORTER_OTLP_PROTOCOL") });
    expect(parseEnv(telemetryEnvSchema, { OTEL_EXPORTER_OTLP_ENDPOINT: "collector" })).toMatchObject({ ok: false, message: expect.stringContaining("OTEL_EXPORTER_OTLP_ENDPOINT") });
  });

  it("has no metrics port unless METRICS_PORT is set; 0 picks a free one", () => {
    expect(parse({}).METRICS_PORT).toBeUndefined();
    expect(parse({ METRICS_PORT: "" }).METRICS_PORT).toBeUndefined();
    expect(parse({ METRICS_PORT: "0" }).METRICS_PORT).toBe(0);
    expect(parse({ METRICS_PORT: "9464" })).toMatchObject({ METRICS_PORT: 9464, METRICS_HOST: "127.0.0.1" });
    expect(parseEnv(telemetryEnvSchema, { METRICS_PORT: "70000" }).ok).toBe(false);
  });
});
