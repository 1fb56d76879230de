import { createHash } from "node:crypto";
import type { KV, NatsConnection } from "nats";
import { decodeJson, KeyedBatches, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { addSpending, SpendingTotals, zeroSpending, type Usage } from "@agent-orchestrator/shared/wire";
import { z } from "zod";
import { LastSeenEntries } from "../nats/last-seen-entries.js";
import { dayOf, monthOf } from "./spending-periods.js";

/**
 * The entries (model calls and deliveries' ends) a key remembers having counted. An entry is counted by one
 * process, so the only second attempt at the same key is a retry of a write that failed or whose reply was lost,
 * with the turn's next call or at its end (delivery-spending.ts), behind the entries other running turns counted
 * meanwhile: a few dozen is plenty.
 */
const rememberedRuns = 64;
/**
 * An entry as a key remembers it: 16 characters of its SHA-256 (96 bits) instead of the ~40 of `<run id>:<attempt>:<n>`,
 * since every write of a key carries all it remembers (the runs were most of a key's bytes).
 */
const entryOf = (runKey: string): string => createHash("sha256").update(runKey).digest("base64url").slice(0, 16);
/** A user's days and months kept: enough for today, this month and the month before. */
const keptDays = 62;
const keptMonths = 24;
/**
 * Keys whose last entry this process keeps (a project's month, a user's periods: two per running turn), so that
 * counting a call writes over it at once instead of reading it first; the oldest is forgotten past this.
 */
const knownKeys = 256;

const ProjectMonth = SpendingTotals.extend({ by_agent: z.record(z.string(), SpendingTotals), runs: z.array(z.string()) });
type ProjectMonth = z.infer<typeof ProjectMonth>;
const UserSpending = z.object({ days: z.record(z.string(), SpendingTotals), months: z.record(z.string(), SpendingTotals), runs: z.array(z.string()) });
type UserSpending = z.infer<typeof UserSpending>;

/** What one entry makes of a key's value; undefined when the key has it already. */
type Edit<T> = (stored: T | undefined) => T | undefined;

/**
 * Spending to count once: one model call's as it ends, or the end of a delivery of a turn (the turn itself, and
 * what its calls could not store); where it ran and for whom.
 */
export interface SpentTurn {
  /**
   * what is counted once: `<run id>:<attempt>` for a delivery's end, `<run id>:<attempt>:<n>` for its n-th model
   * call (each delivery that ran paid for its calls)
   */
  runKey: string;
  projectId: string;
  user: string;
  agentId: string;
  usage: Usage;
  /** 1 for a turn's end, 0 for a model call (and a subagent's end): a turn is counted once, its calls are not turns */
  turns: 0 | 1;
  at: Date;
}

/** A project's month as stored: its totals and each agent's. */
export interface ProjectMonthSpending {
  totals: SpendingTotals;
  byAgent: Record<string, SpendingTotals>;
}

const projectPrefix = (projectId: string): string => `p.${projectId}.`;
/** User names may hold characters KV keys do not allow: the key holds them base64url-encoded. */
const userKey = (user: string): string => `u.${Buffer.from(user, "utf8").toString("base64url")}`;

/** Usage as totals: cached tokens are part of the prompt tokens; a route without a price costs 0. */
export const spendingOf = (usage: Usage, turns: number): SpendingTotals => ({
  prompt_tokens: usage.prompt_tokens,
  cached_prompt_tokens: usage.cached_prompt_tokens ?? 0,
  completion_tokens: usage.completion_tokens,
  cost: usage.cost ?? 0,
  turns,
});

/**
 * What turns spent, in the JetStream KV bucket `spending` (docs/models.md "Cost totals"): `p.<project>.<yyyy-mm>`
 * holds a project's month with each agent's share, `u.<user, base64url>` a user's recent days and months (UTC). A
 * model call or a turn's end is added to each key by compare-and-set, made again from a fresh read when another
 * replica wrote first, so no increment is lost; each key remembers the entries it counted, so a retried write
 * counts once. The compare-and-set is made first over the entry this process last read or wrote: one round trip
 * while no other replica wrote the key since, a refused write and a read more when one did. This process writes a key
 * one write at a time, and what its turns count while a write of that key is under way goes in the key's next write
 * together (group commit: KeyedBatches), so turns running at once for one project or one user share their writes.
 */
export class SpendingStore {
  /** a key's edits, written together: answers, for each, whether it changed the key */
  private readonly batches = new KeyedBatches<{ schema: z.ZodType; edit: Edit<unknown> }, boolean>((key, edits) => this.changeAll(key, edits));
  /** the last entry of each key seen here */
  private readonly known: LastSeenEntries<unknown>;

  private constructor(private readonly kv: KV) {
    this.known = new LastSeenEntries(kv, knownKeys);
  }

  static async open(connection: NatsConnection, bucket: string): Promise<SpendingStore> {
    // no byte limit (JetStream would reserve it on disk): the keys are small and bounded, a few hundred bytes per project
    // and month (more with many agents) and at most ~10 KB per user with its kept days and months
    return new SpendingStore(await connection.jetstream().views.kv(bucket, { history: 1 }));
  }

  /**
   * Adds spending to its project's month and its user's day and month, both at once; false when both had it already.
   * When one of the two fails, the other may have counted it: recording the same `runKey` again counts it only where
   * it is missing (delivery-spending.ts tries a call again under its own key).
   */
  record(turn: SpentTurn): Promise<boolean> {
    return this.recordAll([turn]);
  }

  /**
   * Adds several entries as `record` does, with one write per key (a turn's end with its last call: two writes, not
   * four one after the other); false when every key had every entry already.
   */
  async recordAll(turns: readonly SpentTurn[]): Promise<boolean> {
    // made in one synchronous run, a key's edits go in one write (KeyedBatches), with other turns' edits of the key waiting then
    const written = await Promise.all(
      turns.flatMap((turn) => {
        const spent = spendingOf(turn.usage, turn.turns);
        const month = monthOf(turn.at);
        const day = dayOf(turn.at);
        const entry = entryOf(turn.runKey);
        return [
          this.change(projectPrefix(turn.projectId) + month, ProjectMonth, (stored) => {
            const current = stored ?? { ...zeroSpending(), by_agent: {}, runs: [] };
            if (current.runs.includes(entry)) return undefined;
            const agent = Object.hasOwn(current.by_agent, turn.agentId) ? current.by_agent[turn.agentId] : undefined;
            return {
              ...addSpending(current, spent),
              by_agent: { ...current.by_agent, [turn.agentId]: addSpending(agent ?? zeroSpending(), spent) },
              runs: remember(current.runs, entry),
            };
          }),
          this.change(userKey(turn.user), UserSpending, (stored) => {
            const current = stored ?? { days: {}, months: {}, runs: [] };
            if (current.runs.includes(entry)) return undefined;
            return {
              days: latest({ ...current.days, [day]: addSpending(ownOrZero(current.days, day), spent) }, keptDays),
              months: latest({ ...current.months, [month]: addSpending(ownOrZero(current.months, month), spent) }, keptMonths),
              runs: remember(current.runs, entry),
            };
          }),
        ];
      }),
    );
    return written.some(Boolean);
  }

  /** A project's spending in `month` (`yyyy-mm`). */
  async projectMonth(projectId: string, month: string): Promise<ProjectMonthSpending> {
    const stored = await this.read(projectPrefix(projectId) + month, ProjectMonth);
    if (!stored) return { totals: zeroSpending(), byAgent: {} };
    const { by_agent: byAgent, runs: _runs, ...totals } = stored.value;
    return { totals, byAgent };
  }

  /** Every month the project spent in, as `yyyy-mm` → totals. */
  async projectMonths(projectId: string): Promise<Map<string, SpendingTotals>> {
    const prefix = projectPrefix(projectId);
    // collect the keys first: awaiting other KV calls while iterating cuts the key listing short
    const keys: string[] = [];
    for await (const key of await retryWhileLeaderless(() => this.kv.keys(`${prefix}*`))) keys.push(key);
    const months = new Map<string, SpendingTotals>();
    for (const key of keys) months.set(key.slice(prefix.length), (await this.projectMonth(projectId, key.slice(prefix.length))).totals);
    return months;
  }

  /** A user's spending on `day` (`yyyy-mm-dd`) and in `month` (`yyyy-mm`), across every project. */
  async userPeriods(user: string, day: string, month: string): Promise<{ day: SpendingTotals; month: SpendingTotals }> {
    const stored = await this.read(userKey(user), UserSpending);
    return { day: ownOrZero(stored?.value.days ?? {}, day), month: ownOrZero(stored?.value.months ?? {}, month) };
  }

  private async read<S extends z.ZodType>(key: string, schema: S): Promise<{ value: z.infer<S>; revision: number } | undefined> {
    const entry = await retryWhileLeaderless(() => this.kv.get(key));
    if (!entry || entry.operation !== "PUT") return undefined;
    const read = { value: decodeJson(entry.value, schema) as z.infer<S>, revision: entry.revision };
    // a read that answers after a newer write of this process does not take its place
    if ((this.known.get(key)?.revision ?? 0) < read.revision) this.known.remember(key, read);
    return read;
  }

  /** Lets `edit` say what a key becomes (undefined: leave it), written with the other edits of the key waiting then; whether it wrote. */
  private change<S extends z.ZodType>(key: string, schema: S, edit: Edit<z.infer<S>>): Promise<boolean> {
    return this.batches.run(key, { schema, edit: edit as Edit<unknown> });
  }

  /**
   * Writes a key's edits, each over what the ones before it made, by one compare-and-set: first over the entry last
   * seen here, without a read; a refusal means another replica wrote it since, and the edits are made again from fresh
   * reads. Answers, for each edit, whether it changed the key as written.
   */
  private async changeAll(key: string, edits: ReadonlyArray<{ schema: z.ZodType; edit: Edit<unknown> }>): Promise<boolean[]> {
    let changed: boolean[] = [];
    const all: Edit<unknown> = (stored) => {
      changed = edits.map(() => false);
      let current = stored;
      edits.forEach(({ edit }, index) => {
        const next = edit(current);
        if (next === undefined) return;
        current = next;
        changed[index] = true;
      });
      return changed.includes(true) ? current : undefined;
    };
    return this.known.change(
      key,
      () => this.read(key, edits[0]!.schema),
      async (stored) => {
        await this.write(key, stored, all);
        return changed;
      },
    );
  }

  /** Writes what `edit` makes of `stored` over its revision; nothing when it leaves the key as it is. */
  private async write(key: string, stored: { value: unknown; revision: number } | undefined, edit: Edit<unknown>): Promise<void> {
    const next = edit(stored?.value);
    if (next !== undefined) await this.known.write(key, stored, next);
  }
}

const remember = (runs: readonly string[], entry: string): string[] => [...runs, entry].slice(-rememberedRuns);

const ownOrZero = (totals: Record<string, SpendingTotals>, period: string): SpendingTotals =>
  (Object.hasOwn(totals, period) ? totals[period] : undefined) ?? zeroSpending();

/** The `count` latest periods (ISO dates sort as text). */
function latest(totals: Record<string, SpendingTotals>, count: number): Record<string, SpendingTotals> {
  return Object.fromEntries(
    Object.entries(totals)
      .sort(([a], [b]) => b.localeCompare(a))
      .slice(0, count),
  );
}
