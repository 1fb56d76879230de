import { randomUUID } from "node:crypto";
import { ErrorCode, NatsError, type KV } from "nats";
import { describe, expect, it } from "vitest";
import { encodeJson, isCasConflict } from "@agent-orchestrator/shared/runtime";
import { readThroughFailover, writeThroughFailover } from "./kv-failover.js";
import { scratchStreams } from "../testing/scratch-streams.js";

const scratch = scratchStreams();

async function openBucket(): Promise<KV> {
  const bucket = `failover_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return scratch.connection().jetstream().views.kv(bucket, { history: 1 });
}

/** What a client sees when the server it sent a request through dies: no answer, whatever became of the request. */
const timeout = () => NatsError.errorForCode(ErrorCode.Timeout);

describe("KV operations through a server's loss", () => {
  it("a create that was stored but whose answer was lost returns its own revision on its repeat, not a lost compare-and-set", async () => {
    const kv = await openBucket();
    const value = encodeJson({ owner: "alice", at: new Date().toISOString() });
    let tries = 0;
    const revision = await writeThroughFailover(kv, "k", value, async () => {
      tries++;
      const stored = await kv.create("k", value);
      if (tries === 1) throw timeout();
      return stored;
    });
    expect(tries).toBe(2);
    expect(revision).toBe((await kv.get("k"))?.revision);
  });

  it("a compare-and-set that timed out unstored, then lost to another writer, stays a lost compare-and-set", async () => {
    const kv = await openBucket();
    const first = await kv.create("k", encodeJson({ by: "first" }));
    const mine = encodeJson({ by: "me" });
    let tries = 0;
    const failure = await writeThroughFailover(kv, "k", mine, async () => {
      tries++;
      if (tries === 1) {
        await kv.update("k", encodeJson({ by: "another" }), first);
        throw timeout();
      }
      return kv.update("k", mine, first);
    }).catch((error: unknown) => error);
    expect(isCasConflict(failure)).toBe(true);
    expect(JSON.parse(new TextDecoder().decode((await kv.get("k"))?.value))).toEqual({ by: "another" });
  });

  it("a read that timed out is read again", async () => {
    const kv = await openBucket();
    await kv.put("k", encodeJson({ ok: true }));
    let tries = 0;
    const entry = await readThroughFailover(async () => {
      tries++;
      if (tries === 1) throw timeout();
      return kv.get("k");
    });
    expect(tries).toBe(2);
    expect(entry?.operation).toBe("PUT");
  });
});
