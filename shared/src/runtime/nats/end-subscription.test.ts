import { createServer, connect as connectSocket, type AddressInfo, type Server } from "node:net";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { endSubscription } from "./end-subscription.js";

let proxy: Server;
let connection: NatsConnection;
/** what the client wrote to the server, read on the way through a proxy */
let written = "";

beforeAll(async () => {
  const server = new URL(inject("natsUrl"));
  proxy = createServer((client) => {
    const upstream = connectSocket(Number(server.port), server.hostname);
    client.on("data", (data) => (written += data.toString("latin1")));
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  connection = await connect({ servers: `nats://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
});

afterAll(async () => {
  await connection.close();
  proxy.close();
});

describe("endSubscription", () => {
  it("ends a subscription and tells the server once, however often it is called", async () => {
    const subscription = connection.subscribe("end-subscription.test");
    await connection.flush();
    written = "";
    endSubscription(subscription);
    endSubscription(subscription);
    endSubscription(subscription);
    await connection.flush();
    expect(written.match(/UNSUB /g)).toHaveLength(1);
  });

  it("tells the server nothing more once its reader has left it (nats.js ends it then)", async () => {
    const subscription = connection.subscribe("end-subscription.read");
    await connection.flush();
    const reading = (async () => {
      for await (const message of subscription) if (message.string() === "last") break;
    })();
    connection.publish("end-subscription.read", "last");
    await reading;
    await connection.flush();
    written = "";
    endSubscription(subscription);
    await connection.flush();
    expect(written).not.toContain("UNSUB");
  });
});
