import { setTimeout as sleep } from "node:timers/promises";
import type { NatsConnection } from "nats";
import type { ClusterMember, TestNatsCluster } from "../nats-cluster.js";

/**
 * Moves the leadership of every stream of `streams` to the server leading the first, by asking the other
 * leaders to step down (each step down elects one of the other two peers, so a few tries suffice), so that
 * one kill -9 takes every leader at once while the two other servers keep a quorum of each stream.
 */
export async function gatherLeaders(cluster: TestNatsCluster, admin: NatsConnection, streams: readonly string[], maxTries = 20): Promise<ClusterMember> {
  const [first, ...others] = streams;
  if (first === undefined) throw new Error("no stream to gather");
  // a stream's info can time out while it elects a leader after a step down: ask again
  const leaderOf = async (stream: string): Promise<ClusterMember> => {
    for (let tries = 1; ; tries += 1) {
      try {
        return await cluster.streamLeader(stream);
      } catch (error) {
        if (tries === 5) throw error;
        await sleep(500);
      }
    }
  };
  const target = await leaderOf(first);
  for (const stream of others) {
    for (let tries = 0; (await leaderOf(stream)).name !== target.name; tries += 1) {
      if (tries === maxTries) throw new Error(`${stream} would not move its leader to ${target.name} in ${maxTries} step downs`);
      await admin.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 5_000 }).catch(() => undefined);
      // the step down answers before the election ends: let it end before asking who leads
      await sleep(500);
    }
  }
  // stepping the others down leaves the first alone; this only guards the test's premise
  if ((await leaderOf(first)).name !== target.name) throw new Error(`${first} changed its leader while the others moved`);
  return target;
}
