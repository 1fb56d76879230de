import { trace } from "@opentelemetry/api";
import { connect } from "nats";
import { enclosingSpan } from "./span-timeline.js";

type Request = (...args: unknown[]) => Promise<unknown>;

/** The round trips of one traced run by the turn phase they were made in (`entry`, `admission`, …). */
export type RoundTrips = Map<string, number>;

/**
 * Counts the NATS round trips one in-process service makes during traced runs (span-timeline.ts): each `request`
 * of its connection, which is what a KV read or write, a JetStream API call, an event stored with its
 * acknowledgement and a request to another service each are. Each is charged to the turn phase whose span
 * (`turn admission`, …: services/orchestrator/src/turn/turn-phase.ts) it runs in; one outside every phase to
 * `other`. nats.js has no hook for this, so the connections' shared prototype is wrapped until `stop`.
 */
export async function countRoundTrips(natsUrl: string, service: string) {
  const probe = await connect({ servers: natsUrl });
  const prototype = Object.getPrototypeOf(probe) as { request: Request };
  await probe.close();
  const original = prototype.request;
  const runs: RoundTrips[] = [];
  prototype.request = function (this: { options?: { name?: string } }, ...args: unknown[]) {
    const run = runs.at(-1);
    if (run && this.options?.name?.startsWith(`${service}-`)) {
      const spanId = trace.getActiveSpan()?.spanContext().spanId;
      const phase = (spanId && enclosingSpan(spanId, (name) => name.startsWith("turn ")))?.slice("turn ".length) ?? "other";
      run.set(phase, (run.get(phase) ?? 0) + 1);
    }
    return original.apply(this, args);
  };
  return {
    /** a traced run starts: its round trips are counted apart from the run before */
    nextRun: () => void runs.push(new Map()),
    /** the connections' own `request` again */
    stop: () => void (prototype.request = original),
    /** the median count of each phase over the runs, in the order phases first appeared */
    counts(): RoundTrips {
      const phases = [...new Set(runs.flatMap((run) => [...run.keys()]))];
      return new Map(phases.map((phase) => [phase, median(runs.map((run) => run.get(phase) ?? 0))]));
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The counts as a table cell: `entry 2 · admission 4 · … · total 17`. */
export function describeRoundTrips(counts: RoundTrips): string {
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  return [...[...counts].map(([phase, count]) => `${phase} ${count}`), `total ${total}`].join(" · ");
}
