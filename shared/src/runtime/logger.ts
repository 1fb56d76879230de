import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";
import { traceLogFields } from "./telemetry/trace-log-fields.js";

export type { Logger } from "pino";

/** Keys whose values never reach a log line. */
const redactPaths = [
  "apiKey",
  "*.apiKey",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  "token",
  "*.token",
  "OPENAI_API_KEY",
  "*.OPENAI_API_KEY",
];

/**
 * The logger of a service: JSON lines on stdout (or `destination`), with the service name on every line,
 * the current trace and span ids on lines logged inside a span, and secrets redacted.
 */
export function createLogger(service: string, level: LevelWithSilent = "info", destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    base: { service, pid: process.pid },
    redact: { paths: redactPaths, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceLogFields,
  };
  return destination ? pino(options, destination) : pino(options);
}
