import { RequestStrategy, type NatsConnection } from "nats";
import { natsFailureKind } from "@agent-orchestrator/shared/runtime";
import { serviceNames, type ServiceName } from "@agent-orchestrator/shared/wire";

/**
 * How many replicas of one service answer a `$SRV` ping within `maxWaitMs`. The service is pinged by
 * name (`$SRV.PING.<name>`), which only that service's NATS user may subscribe to, and a reply counts only
 * if it names that service: a reply to the anonymous `$SRV.PING`, which every user may answer, could claim
 * any name (a tool-runner posing as the orchestrator: docs/operations.md "NATS users and permissions").
 */
export async function countReplicas(connection: NatsConnection, name: ServiceName, maxWaitMs = 250): Promise<number> {
  let count = 0;
  try {
    const pings = await connection.services.client({ strategy: RequestStrategy.Timer, maxWait: maxWaitMs }).ping(name);
    for await (const ping of pings) if (ping.name === name) count++;
  } catch (error) {
    // nobody subscribed to this service's ping: none of it runs
    if (natsFailureKind(error) !== "no-responders") throw error;
  }
  return count;
}

/** How many replicas of each service answer a ping by name (see `countReplicas`). */
export async function countServiceReplicas(connection: NatsConnection, maxWaitMs = 250): Promise<Record<string, number>> {
  const names = Object.values(serviceNames);
  const counts = await Promise.all(names.map((name) => countReplicas(connection, name, maxWaitMs)));
  return Object.fromEntries(names.map((name, index) => [name, counts[index] ?? 0]));
}
