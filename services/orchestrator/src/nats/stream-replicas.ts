import type { JetStreamManager, NatsConnection } from "nats";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";

/** How long a raised stream may take to answer again with its new peers (a leader election on 2.9). */
const settleTimeoutMs = 30_000;
const settlePollMs = 200;

/**
 * Refuses JS_REPLICAS above 1 on a server that is not part of a cluster: nats-server 2.9 refuses to
 * create such a stream, but quietly records an update to it, which would look replicated and is not.
 */
export function checkReplicasPossible(connection: NatsConnection, replicas: number): void {
  if (replicas > 1 && !connection.info?.cluster) {
    throw new AppError(
      "SERVICE_UNAVAILABLE",
      `JS_REPLICAS=${replicas} needs a NATS cluster of at least ${replicas} servers, but ${connection.getServer()} is not part of one`,
    );
  }
}

/**
 * The upgrade path of streams (and KV buckets, which are streams) made with fewer replicas: raises the
 * stream to `replicas` by a stream update, which nats-server 2.9 applies to a live stream, and waits
 * until it answers again. Never lowers: more copies than asked for were set by an operator on purpose.
 */
export async function raiseReplicas(manager: JetStreamManager, stream: string, replicas: number, logger: Logger): Promise<void> {
  const current = (await manager.streams.info(stream)).config.num_replicas || 1;
  if (current > replicas) logger.info({ stream, replicas: current, JS_REPLICAS: replicas }, "stream keeps more replicas than JS_REPLICAS");
  if (current >= replicas) return;
  await manager.streams.update(stream, { num_replicas: replicas });
  logger.warn({ stream, from: current, to: replicas }, "raised the stream's replicas");
  await waitForPeers(manager, stream, replicas);
}

/** Polls until the stream's leader reports `replicas - 1` followers; a request during the election times out. */
async function waitForPeers(manager: JetStreamManager, stream: string, replicas: number): Promise<void> {
  const deadline = Date.now() + settleTimeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const info = await manager.streams.info(stream);
      if (info.cluster?.leader && (info.cluster.replicas?.length ?? 0) >= replicas - 1) return;
      last = info.cluster;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, settlePollMs));
  }
  throw new AppError("SERVICE_UNAVAILABLE", `stream ${stream} did not settle at ${replicas} replicas within ${settleTimeoutMs} ms: ${String(last)}`);
}
