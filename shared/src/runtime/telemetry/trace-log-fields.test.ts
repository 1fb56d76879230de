import { afterEach, describe, expect, it } from "vitest";
import { capturingLogger } from "../../testing/capturing-logger.js";
import { startInMemoryTracing } from "../../testing/in-memory-tracing.js";
import { inSpan } from "./spans.js";
import { setTracingActive } from "./tracer.js";

afterEach(() => setTracingActive(false));

describe("trace ids on log lines", () => {
  it("puts the current span's trace and span ids on a line logged inside it, and none outside", async () => {
    startInMemoryTracing();
    const { lines, logger } = capturingLogger();
    const ids = await inSpan("turn", {}, async (span) => {
      logger.info({ step: 1 }, "inside");
      return span.spanContext();
    });
    logger.info({ step: 2 }, "outside");
    expect(lines[0]).toMatchObject({ msg: "inside", step: 1, trace_id: ids.traceId, span_id: ids.spanId });
    expect(lines[1]).toMatchObject({ msg: "outside", step: 2 });
    expect(lines[1]).not.toHaveProperty("trace_id");
  });

  it("adds nothing with tracing off, and every line keeps its own fields", async () => {
    const { lines, logger } = capturingLogger();
    await inSpan("untraced", {}, async () => {
      logger.info({ a: 1 }, "one");
      logger.info({ b: 2 }, "two");
    });
    expect(lines).toEqual([expect.objectContaining({ msg: "one", a: 1 }), expect.objectContaining({ msg: "two", b: 2 })]);
    expect(lines[1]).not.toHaveProperty("a");
    expect(lines[0]).not.toHaveProperty("trace_id");
  });
});
