import { setTimeout as sleep } from "node:timers/promises";
import { NodeTracerProvider, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { setTracingActive } from "@agent-orchestrator/shared/runtime";
import { settleMs } from "./bench-settings.js";
import { summarize } from "./stats.js";

/** A step of a traced operation: a span of its trace (ids folded; the n-th of a name numbered) or a mark. */
export interface TimelineStep {
  step: string;
  /** median milliseconds from the start of the traced operation to the step's start */
  medianAtMs: number;
  /** median duration of the span; absent for a mark */
  medianMs?: number;
}

export interface Trace {
  steps: TimelineStep[];
}

interface Seen {
  step: string;
  at: number;
  duration?: number;
}

/**
 * Keeps each ended span with its start on the `performance.now()` clock: the SDK stamps a span's start
 * with `Date.now()` (whole milliseconds) but measures its duration with `performance.now()`, so the end
 * seen here less the duration is the precise start.
 */
class TimelineProcessor implements SpanProcessor {
  ended: Seen[] = [];
  /** each span started in this run, by id: its name, its parent's id (enclosingSpan) and when it started */
  started = new Map<string, { name: string; parentId: string | undefined; at: number }>();
  onStart(span: ReadableSpan): void {
    this.started.set(span.spanContext().spanId, { name: span.name, parentId: span.parentSpanContext?.spanId, at: performance.now() });
  }
  onEnd(span: ReadableSpan): void {
    const duration = span.duration[0] * 1e3 + span.duration[1] / 1e6;
    this.ended.push({ step: foldIds(span.name), at: performance.now() - duration, duration });
  }
  forceFlush = async (): Promise<void> => {};
  shutdown = async (): Promise<void> => {};
}

let processor: TimelineProcessor | undefined;

/** The in-process services' spans come here; registered once, and tracing is on only while a traced run runs. */
function timelineProcessor(): TimelineProcessor {
  if (!processor) {
    processor = new TimelineProcessor();
    new NodeTracerProvider({ spanProcessors: [processor] }).register();
  }
  return processor;
}

/**
 * Runs traced operations against services started in this process, with their OpenTelemetry tracing on
 * for those runs only (the measured samples run with it off), and shows where the time goes: each span
 * of the operation's trace (the HTTP request, the work-queue publish and wait, the turn, registry, KV,
 * model and tool spans) as its start relative to the operation's start, and its duration. Runs are
 * `settleMs` apart, like measured samples.
 */
export async function traceOperation(
  runs: number,
  /** runs one traced operation; `mark` adds a step the services do not trace (the model, the client) */
  operation: (mark: (step: string, at?: number) => void) => Promise<unknown>,
): Promise<Trace> {
  const spans = timelineProcessor();
  const starts = new Map<string, number[]>();
  const durations = new Map<string, number[]>();
  for (let run = 0; run < runs; run++) {
    const seen: Seen[] = [];
    spans.ended = [];
    spans.started.clear();
    setTracingActive(true);
    const started = performance.now();
    try {
      await operation((step, at = performance.now()) => seen.push({ step, at }));
    } finally {
      setTracingActive(false);
    }
    // the turn's last spans end just after the client has its answer
    await sleep(settleMs);
    seen.push(...spans.ended);
    seen.sort((left, right) => left.at - right.at);
    const counts = new Map<string, number>();
    for (const item of seen) {
      const count = (counts.get(item.step) ?? 0) + 1;
      counts.set(item.step, count);
      const step = count === 1 ? item.step : `${item.step} #${count}`;
      add(starts, step).push(item.at - started);
      if (item.duration !== undefined) add(durations, step).push(item.duration);
    }
  }
  const median = (values: number[]) => Math.round(summarize(values).p50 * 1000) / 1000;
  return {
    steps: [...starts]
      .filter(([, values]) => values.length >= runs / 2)
      .map(([step, values]): TimelineStep => {
        const spanDurations = durations.get(step);
        return { step, medianAtMs: median(values), ...(spanDurations ? { medianMs: median(spanDurations) } : {}) };
      })
      .sort((left, right) => left.medianAtMs - right.medianAtMs),
  };
}

function add(map: Map<string, number[]>, key: string): number[] {
  let values = map.get(key);
  if (values === undefined) {
    values = [];
    map.set(key, values);
  }
  return values;
}

/** The trace as a sentence for a report's notes. */
export function describeTrace(trace: Trace, runs: number, what: string): string[] {
  return [
    `Timeline from the services' trace spans (median of ${runs} traced ${what}; ms from the client's POST to each step's start, ` +
      `and the span's duration in brackets): ` +
      trace.steps.map((step) => `${step.step} ${step.medianAtMs.toFixed(2)}${step.medianMs === undefined ? "" : ` (${step.medianMs.toFixed(2)})`}`).join("; ") +
      ".",
  ];
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Folds the ids in span names (sessions, runs in subjects), so the same step has the same name. */
const foldIds = (name: string): string => name.replace(uuid, "<id>");

/** When (`performance.now()`) the first span of the run under way whose name `matches` started; undefined: none yet. */
export function firstSpanStart(matches: (name: string) => boolean): number | undefined {
  const starts = [...timelineProcessor().started.values()].filter((span) => matches(span.name)).map((span) => span.at);
  return starts.length === 0 ? undefined : Math.min(...starts);
}

/** The name of the span `spanId` or of its nearest ancestor started in this process whose name `matches`. */
export function enclosingSpan(spanId: string, matches: (name: string) => boolean): string | undefined {
  const { started } = timelineProcessor();
  for (let span = started.get(spanId); span; span = span.parentId === undefined ? undefined : started.get(span.parentId)) {
    if (matches(span.name)) return span.name;
  }
  return undefined;
}
