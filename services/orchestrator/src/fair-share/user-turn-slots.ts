import type { KV, NatsConnection } from "nats";
import { decodeJson, encodeJson, KeyedQueue, retryWhileLeaderless, type Logger } from "@agent-orchestrator/shared/runtime";
import { z } from "zod";
import { retryOnConflict } from "../nats/compare-and-set.js";

/** One running turn of a user: held while its orchestrator renews it, given up when it stops doing so. */
const TurnLease = z.object({ run_id: z.string(), expires_at: z.number() });
type TurnLease = z.infer<typeof TurnLease>;
const UserTurns = z.object({ leases: z.array(TurnLease) });

/** The answer to a request for a slot. */
export type SlotRequest = { ok: true; slot: HeldSlot } | { ok: false; running: number };

export interface HeldSlot {
  /** gives the slot back (the turn ended); never throws: a slot not given back expires */
  release(): Promise<void>;
}

export interface UserTurnSlotsOptions {
  /** the most turns one user runs at once; 0: no cap */
  limit: number;
  /** a slot whose orchestrator stops renewing it (its process died) is free again after this long */
  leaseMs: number;
  logger: Logger;
}

/** A key untouched this long holds only expired leases (a live one is renewed every third of its lease). */
const idleKeyMs = 3_600_000;
/** The bucket's bytes: one small key per user active in the last hour. JetStream reserves it on disk. */
const bucketMaxBytes = 64 * 1024 * 1024;

/**
 * The turns each user runs at once, counted across every orchestrator replica (docs/design.md "Fair shares").
 * One KV key per user holds the leases of their running turns, changed only by compare-and-set, so two
 * replicas taking two turns of the same user at the same moment cannot both take the last slot. A lease
 * names its run and expires unless the orchestrator running the turn renews it, so a replica that dies
 * gives its users' slots back after `leaseMs` instead of keeping them for ever. Within one process the
 * changes of a key are made one at a time, so a burst of one user's turns does not fight itself.
 */
export class UserTurnSlots {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly kv: KV,
    private readonly options: UserTurnSlotsOptions,
  ) {}

  static async open(connection: NatsConnection, bucket: string, options: UserTurnSlotsOptions): Promise<UserTurnSlots> {
    const kv = await connection.jetstream().views.kv(bucket, { history: 1, ttl: idleKeyMs, max_bytes: bucketMaxBytes });
    return new UserTurnSlots(kv, options);
  }

  /**
   * A slot for the user's turn `runId`, or the number of turns they already run. A run that already holds
   * a slot keeps it (a second delivery of the same turn). A `takeover` (the turn's orchestrator died and
   * another runs it again) always gets one: that turn was let in before, and its client is waiting.
   */
  async acquire(owner: string, runId: string, options: { takeover: boolean }): Promise<SlotRequest> {
    const { limit, leaseMs } = this.options;
    if (limit === 0) return { ok: true, slot: { release: async () => undefined } };
    let running = 0;
    const granted = await this.change(owner, (leases, now) => {
      const others = leases.filter((lease) => lease.run_id !== runId);
      running = others.length;
      if (others.length >= limit && !options.takeover && others.length === leases.length) return undefined;
      return [...others, { run_id: runId, expires_at: now + leaseMs }];
    });
    if (!granted) return { ok: false, running };
    return { ok: true, slot: this.hold(owner, runId) };
  }

  /** Renews the lease every third of its time until released; a renewal puts back a lease that went missing. */
  private hold(owner: string, runId: string): HeldSlot {
    const { leaseMs, logger } = this.options;
    const renew = () =>
      this.change(owner, (leases, now) => [...leases.filter((lease) => lease.run_id !== runId), { run_id: runId, expires_at: now + leaseMs }]).catch(
        (error: unknown) => logger.warn({ err: error, runId }, "a user's turn slot could not be renewed; it expires unless the next renewal works"),
      );
    const timer = setInterval(() => void renew(), Math.max(100, Math.floor(leaseMs / 3)));
    timer.unref();
    let released: Promise<void> | undefined;
    return {
      release: () => {
        clearInterval(timer);
        released ??= this.change(owner, (leases) => leases.filter((lease) => lease.run_id !== runId)).then(
          () => undefined,
          (error: unknown) => logger.warn({ err: error, runId }, `a user's turn slot could not be given back; it expires within ${leaseMs} ms`),
        );
        return released;
      },
    };
  }

  /**
   * Reads the user's leases (expired ones dropped), lets `edit` say what they become (undefined: leave them),
   * and writes that with compare-and-set, again from a fresh read when another writer got there first.
   * Returns whether it wrote.
   */
  private change(owner: string, edit: (live: TurnLease[], now: number) => TurnLease[] | undefined): Promise<boolean> {
    const key = `user.${Buffer.from(owner, "utf8").toString("base64url")}`;
    return this.queue.run(key, () =>
      // another replica wrote the key: read it again after a short, random pause so the writers spread out
      retryOnConflict(async () => {
        const entry = await retryWhileLeaderless(() => this.kv.get(key));
        const stored = entry?.operation === "PUT" ? decodeJson(entry.value, UserTurns).leases : [];
        const now = Date.now();
        const next = edit(
          stored.filter((lease) => lease.expires_at > now),
          now,
        );
        if (next === undefined) return false;
        const value = encodeJson({ leases: next });
        await retryWhileLeaderless(() => (entry ? this.kv.update(key, value, entry.revision) : this.kv.create(key, value)));
        return true;
      }),
    );
  }
}
