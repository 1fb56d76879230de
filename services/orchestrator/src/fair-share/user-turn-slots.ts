import type { KV, NatsConnection } from "nats";
import { decodeJson, KeyedQueue, retryWhileLeaderless, type Logger } from "@agent-orchestrator/shared/runtime";
import { z } from "zod";
import { LastSeenEntries, type SeenEntry } from "../nats/last-seen-entries.js";

/** One running turn of a user: held while its orchestrator renews it, given up when it stops doing so. */
const TurnLease = z.object({ run_id: z.string(), expires_at: z.number() });
type TurnLease = z.infer<typeof TurnLease>;
const UserTurns = z.object({ leases: z.array(TurnLease) });
type UserTurns = z.infer<typeof UserTurns>;

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
/** Users whose key this process last read or wrote it keeps (their leases and revision); the oldest is forgotten past this. */
const knownKeys = 1_024;

/**
 * The turns each user runs at once, counted across every orchestrator replica (docs/design.md "Fair shares").
 * One KV key per user holds the leases of their running turns, changed only by compare-and-set, so two
 * replicas taking two turns of the same user at the same moment cannot both take the last slot. A lease
 * names its run and expires unless the orchestrator running the turn renews it, so a replica that dies
 * gives its users' slots back after `leaseMs` instead of keeping them for ever. Within one process the
 * changes of a key are made one at a time, so a burst of one user's turns does not fight itself, and each is written
 * first over the leases this process last read or wrote: one round trip before a turn is let in while no other replica
 * wrote the key since (a refused write and a read more when one did). A refusal is only ever decided on a fresh read.
 */
export class UserTurnSlots {
  private readonly queue = new KeyedQueue();
  /** each key's leases as last seen here */
  private readonly known: LastSeenEntries<UserTurns>;

  constructor(
    private readonly kv: KV,
    private readonly options: UserTurnSlotsOptions,
  ) {
    this.known = new LastSeenEntries(kv, knownKeys);
  }

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
   * Lets `edit` say what the user's live leases (expired ones dropped) become (undefined: leave them), and writes
   * that with compare-and-set: first over the leases last seen here, without a read; again from a fresh read when
   * another writer got there first, or when `edit` would leave stale leases as they are (a refusal must see every
   * slot given back since). Returns whether it wrote.
   */
  private change(owner: string, edit: (live: TurnLease[], now: number) => TurnLease[] | undefined): Promise<boolean> {
    const key = `user.${Buffer.from(owner, "utf8").toString("base64url")}`;
    // a refusal (nothing written) is given only from the key as it is now
    return this.queue.run(key, () =>
      this.known.change(
        key,
        () => this.read(key),
        (stored) => this.write(key, stored, edit),
        (wrote) => wrote,
      ),
    );
  }

  private async read(key: string): Promise<SeenEntry<UserTurns> | undefined> {
    const entry = await retryWhileLeaderless(() => this.kv.get(key));
    if (!entry) {
      this.known.forget(key);
      return undefined;
    }
    // a deleted key is written over its delete marker
    const read = { value: entry.operation === "PUT" ? decodeJson(entry.value, UserTurns) : { leases: [] }, revision: entry.revision };
    this.known.remember(key, read);
    return read;
  }

  /** Writes what `edit` makes of the live leases of `stored` over its revision (creates the key when there is none); whether it wrote. */
  private async write(key: string, stored: SeenEntry<UserTurns> | undefined, edit: (live: TurnLease[], now: number) => TurnLease[] | undefined): Promise<boolean> {
    const now = Date.now();
    const next = edit(
      (stored?.value.leases ?? []).filter((lease) => lease.expires_at > now),
      now,
    );
    if (next === undefined) return false;
    await this.known.write(key, stored, { leases: next });
    return true;
  }
}
