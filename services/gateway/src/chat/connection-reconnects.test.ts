import { connect } from "nats";
import { describe, expect, inject, it } from "vitest";
import { onReconnect } from "./connection-reconnects.js";

describe("listening for a connection's reconnections", () => {
  it("tells every listener of each reconnection, until it stops listening", async () => {
    const connection = await connect({ servers: inject("natsUrl"), reconnectTimeWait: 50 });
    try {
      const heard: string[] = [];
      const stopFirst = onReconnect(connection, () => heard.push("first"));
      const reconnected = new Promise<void>((resolve) => onReconnect(connection, () => resolve()));
      await connection.reconnect();
      await reconnected;
      stopFirst();
      const again = new Promise<void>((resolve) => onReconnect(connection, () => resolve()));
      await connection.reconnect();
      await again;
      expect(heard).toEqual(["first"]);
    } finally {
      await connection.close();
    }
  });
});
