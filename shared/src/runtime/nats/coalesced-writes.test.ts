import { Socket } from "node:net";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { coalesceSocketWrites } from "./coalesced-writes.js";

const server = new URL(inject("natsUrl"));
let sender: NatsConnection;
let receiver: NatsConnection;
/** the writes handed to the kernel on sockets to the test's server (`_write` one buffer, `_writev` several) */
let kernelWrites = 0;
const { _write: write, _writev: writev } = Socket.prototype;

beforeAll(async () => {
  coalesceSocketWrites();
  const counted = (socket: Socket) => {
    if (socket.remotePort === Number(server.port)) kernelWrites++;
  };
  Socket.prototype._write = function (this: Socket, ...args: Parameters<Socket["_write"]>) {
    counted(this);
    return write.apply(this, args);
  };
  Socket.prototype._writev = function (this: Socket, ...args: Parameters<NonNullable<Socket["_writev"]>>) {
    counted(this);
    return writev?.apply(this, args);
  };
  sender = await connect({ servers: server.href });
  receiver = await connect({ servers: server.href });
});

afterAll(async () => {
  Socket.prototype._write = write;
  Socket.prototype._writev = writev;
  await sender.close();
  await receiver.close();
});

/** the messages `subject` gets until `count` have come */
async function received(subject: string, count: number): Promise<string[]> {
  const subscription = receiver.subscribe(subject, { max: count });
  await receiver.flush();
  const messages: string[] = [];
  for await (const message of subscription) messages.push(message.string());
  return messages;
}

describe("coalesceSocketWrites", () => {
  it("sends what one turn of the event loop publishes in one write, in order", async () => {
    const subject = "coalesced-writes.turn";
    const arriving = received(subject, 3);
    await sender.flush();
    kernelWrites = 0;
    // three microtask checkpoints of one macrotask: nats.js flushes after each, so three writes without coalescing
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        sender.publish(subject, "1");
        queueMicrotask(() => {
          sender.publish(subject, "2");
          queueMicrotask(() => {
            sender.publish(subject, "3");
            resolve();
          });
        });
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(kernelWrites).toBe(1);
    expect(await arriving).toEqual(["1", "2", "3"]);
  });

  it("still answers requests and sends what was published just before a drain", async () => {
    const subject = "coalesced-writes.drain";
    const arriving = received(subject, 1);
    const replies = receiver.subscribe("coalesced-writes.echo", { callback: (_error, message) => message.respond(message.data) });
    await receiver.flush();
    const echoed = await sender.request("coalesced-writes.echo", "ping", { timeout: 2000 });
    expect(echoed.string()).toBe("ping");
    replies.unsubscribe();
    const last = await connect({ servers: server.href });
    last.publish(subject, "before the drain");
    await last.drain();
    expect(await arriving).toEqual(["before the drain"]);
  });
});
