import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger } from "./logger.js";
import { encodeJson } from "./nats-request.js";
import type { RegistryChanged } from "../wire/registry-messages.js";
import { watchRegistryChanges } from "./registry-change-watch.js";
import { subjects } from "../wire/subjects.js";

let connection: NatsConnection;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});

afterAll(async () => {
  await connection.drain();
});

describe("watchRegistryChanges", () => {
  it("forgets on every change, also on a message that is not a valid change, which it logs", async () => {
    const prefix = `watch${Date.now()}.`;
    const lines: string[] = [];
    let changes = 0;
    const subscription = watchRegistryChanges(connection, prefix, createLogger("test", "debug", { write: (line: string) => void lines.push(line) }), () => changes++);
    const change: RegistryChanged = { instance: "r1", revision: 3, changedAt: new Date().toISOString(), added: ["pm"], removed: [], updated: [], bundles: [] };
    // another prefix is another deployment
    connection.publish(`other.${subjects.registryChanged}`, encodeJson(change));
    connection.publish(prefix + subjects.registryChanged, encodeJson(change));
    connection.publish(prefix + subjects.registryChanged, new TextEncoder().encode("{not json"));
    // the invalid one, sent last, logged: everything sent before it has been handled
    await expect.poll(() => lines.join(""), { timeout: 10_000 }).toContain("invalid registry change event");
    subscription.unsubscribe();
    expect(changes).toBe(2);
    expect(lines.join("")).toContain('"revision":3');
    expect(lines.join("")).toContain("invalid registry change event");
  });
});
