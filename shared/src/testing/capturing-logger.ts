import { Writable } from "node:stream";
import { createLogger, type Logger } from "../runtime/logger.js";

/** A service logger (info and up) whose JSON lines land in an array, for tests that check what is logged. */
export function capturingLogger(): { lines: Array<Record<string, unknown>>; logger: Logger } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger("test", "info", destination) };
}
