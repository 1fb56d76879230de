import { RequestStrategy, type NatsConnection } from "nats";
import { serviceNames } from "@agent-orchestrator/shared";

/** How many replicas of each service answer a `$SRV` ping within `maxWaitMs`. */
export async function countServiceReplicas(connection: NatsConnection, maxWaitMs = 250): Promise<Record<string, number>> {
  const replicas: Record<string, number> = Object.fromEntries(Object.values(serviceNames).map((name) => [name, 0]));
  const pings = await connection.services.client({ strategy: RequestStrategy.Timer, maxWait: maxWaitMs }).ping();
  for await (const ping of pings) {
    if (ping.name in replicas) replicas[ping.name] = (replicas[ping.name] ?? 0) + 1;
  }
  return replicas;
}
