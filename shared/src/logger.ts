import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";

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
 * The logger of a service: JSON lines on stdout (or `destination`), with the service name on every line
 * and secrets redacted.
 */
export function createLogger(service: string, level: LevelWithSilent = "info", destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    base: { service, pid: process.pid },
    redact: { paths: redactPaths, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
