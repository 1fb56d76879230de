/**
 * The floor of distribution: the hops a turn of this design cannot avoid, with nothing else on them. An
 * HTTP server (the gateway's place) subscribes to the turn's events, queues the request in a JetStream
 * work queue with a message id and waits for the acknowledgement; a worker (the orchestrator's place, on
 * its own connection) pulls it, does the turn's work (streams the model, or runs the in-process loop with
 * its tool calls sent to the real tool-runner) and stores each piece of the answer as an event in a
 * JetStream stream; the server writes the events to the client as SSE. No registry, no session in KV, no
 * agent start, no manifest, no validation. What this adds above the work done in one process is the cost
 * of the hops; what the system adds above this is its own work (bench/README.md).
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AckPolicy, connect, RetentionPolicy, StorageType, type JsMsg, type NatsConnection } from "nats";

export interface DistributionFloor {
  url: string;
  stop(): Promise<void>;
}

const requests = "FLOOR_REQUESTS";
const events = "FLOOR_EVENTS";
const consumerName = "floor-worker";

/**
 * The worker's part of a turn: the same work the baseline does in process (stream the model, or run the
 * in-process loop), with `emit` storing a piece of the answer as an event.
 */
export type FloorWork = (emit: (text: string) => void) => Promise<void>;

export async function startDistributionFloor(natsUrl: string, work: FloorWork): Promise<DistributionFloor> {
  const gatewaySide = await connect({ servers: natsUrl });
  const workerSide = await connect({ servers: natsUrl });
  const manager = await workerSide.jetstreamManager();
  await manager.streams.add({ name: requests, subjects: ["floor.request.*"], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
  await manager.streams.add({ name: events, subjects: ["floor.events.*"], retention: RetentionPolicy.Limits, storage: StorageType.File, max_age: 60_000_000_000 });
  await manager.consumers.add(requests, { durable_name: consumerName, ack_policy: AckPolicy.Explicit });
  let stopping = false;
  const worker = runWorker(workerSide, work, () => stopping);
  const server = createServer((incoming, response) => {
    const id = randomUUID();
    incoming.resume();
    incoming.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const subscription = gatewaySide.subscribe(`floor.events.${id}`);
      void (async () => {
        for await (const message of subscription) {
          const text = message.string();
          if (text === "") break;
          response.write(`event: delta\ndata: ${text}\n\n`);
        }
        response.end("event: done\ndata: {}\n\n");
      })();
      gatewaySide
        .jetstream()
        .publish(`floor.request.${id}`, new Uint8Array(0), { msgID: id })
        .catch((error: unknown) => response.destroy(error as Error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      stopping = true;
      await closeServer(server);
      await worker;
      await manager.streams.delete(requests);
      await manager.streams.delete(events);
      await gatewaySide.close();
      await workerSide.close();
    },
  };
}

/** Turns one worker runs at once, as an orchestrator does (its RUN_CONCURRENCY in the throughput measure). */
const workerConcurrency = 64;

async function runWorker(connection: NatsConnection, work: FloorWork, stopping: () => boolean): Promise<void> {
  const consumer = await connection.jetstream().consumers.get(requests, consumerName);
  const js = connection.jetstream();
  const running = new Set<Promise<void>>();
  const turn = async (message: JsMsg) => {
    const subject = message.subject.replace("floor.request.", "floor.events.");
    const stored: Array<Promise<unknown>> = [];
    await work((text) => stored.push(js.publish(subject, new TextEncoder().encode(JSON.stringify(text)))));
    stored.push(js.publish(subject, new Uint8Array(0)));
    await Promise.all(stored);
    message.ack();
  };
  while (!stopping()) {
    if (running.size >= workerConcurrency) await Promise.race(running);
    const message = await consumer.next({ expires: 1_000 });
    if (!message) continue;
    const started: Promise<void> = turn(message).finally(() => running.delete(started));
    running.add(started);
  }
  await Promise.all(running);
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
