import { RequestStrategy, type NatsConnection } from "nats";
import { serviceNames } from "@agent-orchestrator/shared";

/**
 * How many replicas of each service answer a `$SRV` ping within `maxWaitMs`. Each service is pinged by
 * name (`$SRV.PING.<name>`), which only that service's NATS user may subscribe to, and a reply counts
 * only if it names that service: a reply to the anonymous `$SRV.PING`, which every user may answer, could
 * claim any name (issue 14: a tool-runner posing as the orchestrator).
 */
export async function countServiceReplicas(connection: NatsConnection, maxWaitMs = 250): Promise<Record<string, number>> {
  const client = connection.services.client({ strategy: RequestStrategy.Timer, maxWait: maxWaitMs });
  const counts = await Promise.all(
    Object.values(serviceNames).map(async (name) => {
      let count = 0;
      for await (const ping of await client.ping(name)) if (ping.name === name) count++;
      return [name, count] as const;
    }),
  );
  return Object.fromEntries(counts);
}
