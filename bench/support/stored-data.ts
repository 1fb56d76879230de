import { connectNats, createLogger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, serviceNames } from "@agent-orchestrator/shared/wire";

/**
 * Removes every stream and bucket of the unprefixed set that service processes used on the bench's server (uploads,
 * repositories: gigabytes), so the measures after them (measure 10's restart above all) do not read them back.
 */
export async function removeStoredData(natsUrl: string): Promise<void> {
  // without credentials the bench server lets a client in as admin
  const connection = await connectNats({ url: natsUrl, service: serviceNames.toolRunner, logger: createLogger("bench", "silent"), credentials: null });
  try {
    const manager = await connection.jetstreamManager();
    const names = Object.values(jetStreamNames("")).flatMap((name) => [name, `KV_${name}`, `OBJ_${name}`]);
    await Promise.all(names.map((name) => manager.streams.delete(name).catch(() => undefined)));
  } finally {
    await connection.drain();
  }
}
