/**
 * The per-user cap on running turns against a real JetStream KV bucket: two `UserTurnSlots` over one bucket
 * stand for two orchestrator replicas.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { KV } from "nats";
import { createLogger, encodeJson } from "@agent-orchestrator/shared/runtime";
import { scratchStreams } from "../testing/scratch-streams.js";
import { UserTurnSlots, type UserTurnSlotsOptions } from "./user-turn-slots.js";

const scratch = scratchStreams();
const logger = createLogger("user-turn-slots-test", "silent");

/** Two replicas' views of one fresh bucket. */
async function twoReplicas(options: Partial<UserTurnSlotsOptions> = {}) {
  const bucket = `slots_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  const settings = { limit: 2, leaseMs: 30_000, logger, ...options };
  const first = await UserTurnSlots.open(scratch.connection(), bucket, settings);
  const second = await UserTurnSlots.open(scratch.connection(), bucket, settings);
  const kv = await scratch.connection().jetstream().views.kv(bucket);
  return { first, second, kv };
}

const userKey = (owner: string) => `user.${Buffer.from(owner, "utf8").toString("base64url")}`;

describe("UserTurnSlots", () => {
  it("case 132: grants one user at most the limit across two replicas taking a burst at the same moment", async () => {
    const { first, second } = await twoReplicas({ limit: 3 });
    const requests = Array.from({ length: 12 }, (_unused, index) => (index % 2 === 0 ? first : second).acquire("ada", `run-${index}`, { takeover: false }));
    const answers = await Promise.all(requests);
    const granted = answers.filter((answer) => answer.ok);
    expect(granted).toHaveLength(3);
    expect(answers.filter((answer) => !answer.ok)).toEqual(Array(9).fill({ ok: false, running: 3 }));
    // another user is not touched by ada's load
    expect((await second.acquire("bob", "bob-1", { takeover: false })).ok).toBe(true);
    // a slot given back is free again
    const [held] = granted;
    if (!held?.ok) throw new Error("no slot");
    await held.slot.release();
    expect((await first.acquire("ada", "run-late", { takeover: false })).ok).toBe(true);
  });

  it("case 132: lets a user's next turn in by one write over what this replica last saw, and refuses only from a fresh read", async () => {
    const { second, kv } = await twoReplicas({ limit: 2 });
    let reads = 0;
    const counted = { get: (key: string) => (reads++, kv.get(key)), update: kv.update.bind(kv), create: kv.create.bind(kv) } as unknown as KV;
    const first = new UserTurnSlots(counted, { limit: 2, leaseMs: 30_000, logger });
    const one = await first.acquire("ada", "r1", { takeover: false });
    expect(one.ok).toBe(true);
    expect(reads).toBe(1);
    expect((await first.acquire("ada", "r2", { takeover: false })).ok).toBe(true);
    expect(reads).toBe(1);
    // full: a refusal is decided on the key as it is now, which may hold slots given back on another replica
    expect(await first.acquire("ada", "r3", { takeover: false })).toEqual({ ok: false, running: 2 });
    expect(reads).toBe(2);
    if (!one.ok) throw new Error("no slot");
    await one.slot.release();
    const three = await first.acquire("ada", "r3", { takeover: false });
    expect(reads).toBe(2);
    // another replica writes the key: this one's compare-and-set over what it saw is refused, and it reads again
    expect((await second.acquire("ada", "r4", { takeover: true })).ok).toBe(true);
    if (!three.ok) throw new Error("no slot");
    await three.slot.release();
    expect(reads).toBe(3);
    const entry = await kv.get(userKey("ada"));
    const leases = (JSON.parse(new TextDecoder().decode(entry?.value)) as { leases: Array<{ run_id: string }> }).leases;
    expect(leases.map((lease) => lease.run_id).sort()).toEqual(["r2", "r4"]);
  });

  it("keeps a slot for a second delivery of the same turn, and always lets a takeover in", async () => {
    const { first, second } = await twoReplicas({ limit: 1 });
    expect((await first.acquire("ada", "r1", { takeover: false })).ok).toBe(true);
    expect((await second.acquire("ada", "r1", { takeover: false })).ok).toBe(true);
    expect(await second.acquire("ada", "r2", { takeover: false })).toEqual({ ok: false, running: 1 });
    expect((await second.acquire("ada", "r3", { takeover: true })).ok).toBe(true);
  });

  it("case 133: gives a dead replica's slots back when their leases expire, and keeps a live one's by renewing it", async () => {
    const { first, kv } = await twoReplicas({ limit: 1, leaseMs: 600 });
    // what a replica that died mid-turn leaves behind: a lease nobody renews
    await kv.put(userKey("ada"), encodeJson({ leases: [{ run_id: "dead-run", expires_at: Date.now() + 600 }] }));
    expect(await first.acquire("ada", "r1", { takeover: false })).toEqual({ ok: false, running: 1 });
    await expect.poll(async () => (await first.acquire("ada", "r1", { takeover: false })).ok, { timeout: 10_000, interval: 100 }).toBe(true);

    // the live holder renews: its lease's expiry moves on while it runs
    const expiry = async () => {
      const entry = await kv.get(userKey("ada"));
      const leases = entry ? (JSON.parse(new TextDecoder().decode(entry.value)) as { leases: Array<{ run_id: string; expires_at: number }> }).leases : [];
      return leases.find((lease) => lease.run_id === "r1")?.expires_at ?? 0;
    };
    const firstExpiry = await expiry();
    await expect.poll(expiry, { timeout: 10_000, interval: 100 }).toBeGreaterThan(firstExpiry);
  });

  it("does not count when the limit is 0", async () => {
    const { first } = await twoReplicas({ limit: 0 });
    const answers = await Promise.all(Array.from({ length: 5 }, (_unused, index) => first.acquire("ada", `r${index}`, { takeover: false })));
    expect(answers.every((answer) => answer.ok)).toBe(true);
  });
});
