import { trace } from "@opentelemetry/api";
import { connect } from "nats";
import { enclosingSpan } from "./span-timeline.js";

type Request = (...args: unknown[]) => Promise<unknown>;

/** The round trips of one traced run by the turn phase they were made in (`entry`, `admission`, …). */
export type RoundTrips = Map<string, number>;

/** One request of a traced run: its phase, what it was (requestKind: `event` when it stored one of the turn's events), when it was sent and answered. */
interface Sent {
  phase: string;
  kind: string;
  at: number;
  answeredAt: number;
}

/** The phases before the turn's first model call. */
const beforeTheModel = new Set(["entry", "admission", "hold", "preparation"]);

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
  const runs: Sent[][] = [];
  // when each run's first model call was made: a round trip answered later was not waited for by the call
  const modelCalls: number[] = [];
  prototype.request = function (this: { options?: { name?: string } }, ...args: unknown[]) {
    const run = runs.at(-1);
    const answer = original.apply(this, args);
    if (run && this.options?.name?.startsWith(`${service}-`)) {
      const spanId = trace.getActiveSpan()?.spanContext().spanId;
      const phase = (spanId && enclosingSpan(spanId, (name) => name.startsWith("turn ")))?.slice("turn ".length) ?? "other";
      const sent: Sent = { phase, kind: requestKind(String(args[0])), at: performance.now(), answeredAt: Number.POSITIVE_INFINITY };
      run.push(sent);
      void answer.finally(() => (sent.answeredAt = performance.now())).catch(() => undefined);
    }
    return answer;
  };
  const byPhase = (count: (sent: Sent[], modelAt: number) => number): RoundTrips => {
    const phases = [...new Set(runs.flatMap((run) => run.map((sent) => sent.phase)))];
    return new Map(
      phases.map((phase) => [phase, median(runs.map((run, index) => count(run.filter((sent) => sent.phase === phase), modelCalls[index] ?? Number.POSITIVE_INFINITY)))]),
    );
  };
  return {
    /** a traced run starts: its round trips are counted apart from the run before */
    nextRun: () => void runs.push([]),
    /** when the run's first model call was made (`performance.now()`) */
    modelCalled: (at: number) => void (modelCalls[runs.length - 1] = at),
    /** the connections' own `request` again */
    stop: () => void (prototype.request = original),
    /** the median count of each phase over the runs, in the order phases first appeared */
    counts: (): RoundTrips => byPhase((sent) => sent.length),
    /** every round trip of every run by what it was (requestKind), most first */
    kinds(): RoundTrips {
      const kinds = new Map<string, number>();
      for (const sent of runs.flat()) kinds.set(sent.kind, (kinds.get(sent.kind) ?? 0) + 1);
      return new Map([...kinds].sort(([, left], [, right]) => right - left));
    },
    /**
     * The round trips the turn waits for one after the other before its first model call, by phase (median): a
     * request sent once every earlier one was answered starts a new wait; one sent while another is under way adds
     * none, nor one answered after the model call was made (the session's hold, written while the call goes out).
     * The turn's events are left out (stored while the turn goes on, their acknowledgements awaited at its end).
     */
    waits(): RoundTrips {
      const waits = byPhase((sent, modelAt) => {
        let count = 0;
        let answeredAt = Number.NEGATIVE_INFINITY;
        for (const request of sent.filter((one) => one.kind !== "event" && one.answeredAt <= modelAt).sort((a, b) => a.at - b.at)) {
          if (request.at >= answeredAt) count++;
          answeredAt = request.at >= answeredAt ? request.answeredAt : Math.max(answeredAt, request.answeredAt);
        }
        return count;
      });
      return new Map([...waits].filter(([phase]) => beforeTheModel.has(phase)));
    },
  };
}

/**
 * What a request was, from its subject: a stored event of a turn, a KV write or read (by bucket), a tool call, or
 * the subject itself with its ids folded.
 */
function requestKind(subject: string): string {
  const write = /^\$KV\.([^.]+)\./.exec(subject);
  if (write) return `KV write ${write[1]}`;
  const read = /^\$JS\.API\.DIRECT\.GET\.KV_([^.]+)/.exec(subject);
  if (read) return `KV read ${read[1]}`;
  if (subject.includes(".run.events.")) return "event";
  const tool = /\.tool\.([^.]+)$/.exec(subject);
  if (tool) return `tool ${tool[1]}`;
  return subject.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>");
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The counts as a table cell: `entry 2 · admission 4 · … · total 17`; each divided by `per` (sessions) when given. */
export function describeRoundTrips(counts: RoundTrips, per = 1): string {
  const figure = (count: number) => String(Math.round((count / per) * 100) / 100);
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  return [...[...counts].map(([phase, count]) => `${phase} ${figure(count)}`), `total ${figure(total)}`].join(" · ");
}
