import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "nats";
import { settleMs } from "./bench-settings.js";
import { summarize } from "./stats.js";

/** A step of a traced operation: the n-th message on a subject (ids and inbox tokens folded). */
export interface TimelineStep {
  step: string;
  /** median milliseconds from the start of the traced operation */
  medianAtMs: number;
}

/** A request and its reply, matched by the reply subject. */
export interface RoundTrip {
  request: string;
  /** median milliseconds from the start of the operation to the request */
  medianAtMs: number;
  /** median milliseconds from the request to its reply */
  medianMs: number;
}

export interface Trace {
  steps: TimelineStep[];
  roundTrips: RoundTrip[];
}

interface Seen {
  step: string;
  subject: string;
  reply: string;
  at: number;
}

/**
 * Watches every subject on the server (`>`) while traced operations run, to show where the time goes:
 * each message's arrival at this watcher relative to the operation's start, and each request's time to
 * its reply. The watcher sees a message when nats-server forwards it, a few microseconds after it was
 * sent. Tracing doubles the server's fan-out, so traced runs are kept apart from measured samples; they
 * are `settleMs` apart, like measured samples.
 */
export async function traceOperation(
  natsUrl: string,
  runs: number,
  /** runs one traced operation; `mark` adds a step seen outside NATS (the model, the client) */
  operation: (mark: (step: string, at?: number) => void) => Promise<unknown>,
): Promise<Trace> {
  const connection = await connect({ servers: natsUrl });
  let current: Seen[] | undefined;
  connection.subscribe(">", {
    callback: (_error, message) => current?.push({ step: foldSubject(message.subject), subject: message.subject, reply: message.reply ?? "", at: performance.now() }),
  });
  await connection.flush();
  const offsets = new Map<string, number[]>();
  const trips = new Map<string, { at: number[]; duration: number[] }>();
  try {
    for (let run = 0; run < runs; run++) {
      const seen: Seen[] = [];
      current = seen;
      const started = performance.now();
      await operation((step, at = performance.now()) => seen.push({ step, subject: "", reply: "", at }));
      current = undefined;
      await sleep(settleMs);
      seen.sort((left, right) => left.at - right.at);
      const counts = new Map<string, number>();
      const numbered = (step: string) => {
        const count = (counts.get(step) ?? 0) + 1;
        counts.set(step, count);
        return count === 1 ? step : `${step} #${count}`;
      };
      for (const [index, message] of seen.entries()) {
        const step = numbered(message.step);
        add(offsets, step, () => [] as number[]).push(message.at - started);
        if (!message.reply) continue;
        const answer = seen.slice(index + 1).find((later) => later.subject === message.reply);
        if (!answer) continue;
        const trip = add(trips, step, () => ({ at: [] as number[], duration: [] as number[] }));
        trip.at.push(message.at - started);
        trip.duration.push(answer.at - message.at);
      }
    }
  } finally {
    await connection.drain();
  }
  const median = (values: number[]) => Math.round(summarize(values).p50 * 1000) / 1000;
  return {
    steps: [...offsets]
      .filter(([, values]) => values.length >= runs / 2)
      .map(([step, values]) => ({ step, medianAtMs: median(values) }))
      .sort((left, right) => left.medianAtMs - right.medianAtMs),
    roundTrips: [...trips]
      .filter(([, trip]) => trip.duration.length >= runs / 2)
      .map(([request, trip]) => ({ request, medianAtMs: median(trip.at), medianMs: median(trip.duration) }))
      .sort((left, right) => left.medianAtMs - right.medianAtMs),
  };
}

function add<T>(map: Map<string, T>, key: string, create: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** The trace as two sentences for a report's notes. */
export function describeTrace(trace: Trace, runs: number, what: string): string[] {
  return [
    `Timeline (median of ${runs} traced ${what}, ms from the client's POST): ` + trace.steps.map((step) => `${step.step} ${step.medianAtMs.toFixed(2)}`).join("; ") + ".",
    `Request → reply on NATS as the watcher sees them (median ms, in order; JetStream answers inside nats-server, so its replies reach the watcher ` +
      `with the request and show about 0): ` +
      trace.roundTrips.map((trip) => `${trip.request} ${trip.medianMs.toFixed(2)}`).join("; ") +
      ".",
  ];
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Folds the parts of a subject that differ from turn to turn, so the same step has the same name. */
function foldSubject(subject: string): string {
  if (subject.startsWith("_INBOX")) return `${subject.split(".")[0]} (reply)`;
  if (subject.startsWith("$JS.ACK.")) return `$JS.ACK.${subject.split(".").slice(2, 4).join(".")} (ack)`;
  return subject.replace(uuid, "<id>");
}
