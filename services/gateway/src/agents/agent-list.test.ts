import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger, encodeJson } from "@agent-orchestrator/shared/runtime";
import { subjects, type AgentSummary } from "@agent-orchestrator/shared/wire";
import { AgentList, agentListMaxAgeMs } from "./agent-list.js";
import { gatewayEnvSchema } from "../config.js";

let connection: NatsConnection;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});
afterAll(() => connection.drain());

const agent = (id: string): AgentSummary => ({ id, name: id, title: "", icon: "", description: "", bundleName: "b", source: "bundle" });

/** A registry stand-in on its own prefix that lists `current` and counts the requests. */
function fakeRegistry() {
  const prefix = `al${randomUUID().slice(0, 8)}.`;
  const registry = { prefix, current: [agent("a")], requests: 0, failing: false, held: undefined as Promise<void> | undefined };
  connection.subscribe(prefix + subjects.registryAgentsList, {
    callback: (_error, message) => {
      registry.requests++;
      const answer = encodeJson(registry.failing ? { success: false, error: { code: "INTERNAL", message: "down" } } : { success: true, agents: registry.current });
      if (registry.held) void registry.held.then(() => message.respond(answer));
      else message.respond(answer);
    },
  });
  return registry;
}

function listFor(prefix: string, now: () => number = Date.now) {
  const config = gatewayEnvSchema.parse({});
  return new AgentList({ connection, config, subjectPrefix: prefix }, createLogger("agent-list-test", "silent"), now);
}

describe("the gateway's agent list", () => {
  it("answers repeated and concurrent calls from one registry request", async () => {
    const registry = fakeRegistry();
    const list = listFor(registry.prefix);
    const [first, second] = await Promise.all([list.list(), list.list()]);
    expect(await list.list()).toEqual([agent("a")]);
    expect([first, second]).toEqual([[agent("a")], [agent("a")]]);
    expect(registry.requests).toBe(1);
    list.close();
  });

  it("shows the registry's new list once it announces a change", async () => {
    const registry = fakeRegistry();
    const list = listFor(registry.prefix);
    await list.list();
    registry.current = [agent("a"), agent("b")];
    connection.publish(registry.prefix + subjects.registryChanged, encodeJson({ instance: "r1", revision: 2, changedAt: new Date().toISOString(), added: ["b"], removed: [], updated: [], bundles: ["b"] }));
    await connection.flush();
    for (let tries = 0; tries < 50 && registry.requests < 2; tries++) {
      await list.list();
      await sleep(10);
    }
    expect((await list.list()).map((summary) => summary.id)).toEqual(["a", "b"]);
    list.close();
  });

  it("keeps the GET /api/agents body made of the list, with an ETag that changes with it", async () => {
    const registry = fakeRegistry();
    let now = 1_000;
    const list = listFor(registry.prefix, () => now);
    const first = await list.current();
    expect(JSON.parse(first.body.toString("utf8"))).toEqual({ success: true, agents: [agent("a")] });
    expect(await list.current()).toBe(first);
    registry.current = [agent("b")];
    now += agentListMaxAgeMs;
    expect(await list.current()).toBe(first);
    now += 1;
    const second = await list.current();
    expect(JSON.parse(second.body.toString("utf8"))).toEqual({ success: true, agents: [agent("b")] });
    expect(second.etag).not.toBe(first.etag);
    list.close();
  });

  it("gives a request under way when a change arrives its answer, and does not keep it", async () => {
    const registry = fakeRegistry();
    const list = listFor(registry.prefix);
    let release: () => void = () => undefined;
    registry.held = new Promise<void>((resolve) => (release = resolve));
    const underWay = list.list();
    await connection.flush();
    registry.current = [agent("a"), agent("b")];
    connection.publish(registry.prefix + subjects.registryChanged, encodeJson({ instance: "r1", revision: 2, changedAt: new Date().toISOString(), added: ["b"], removed: [], updated: [], bundles: ["b"] }));
    for (let tries = 0; tries < 50 && registry.requests < 2; tries++) {
      void list.list();
      await sleep(10);
    }
    registry.held = undefined;
    release();
    expect(await underWay).toEqual([agent("a")]);
    expect((await list.list()).map((summary) => summary.id)).toEqual(["a", "b"]);
    expect(registry.requests).toBe(2);
    list.close();
  });

  it("asks again after the safety-net age even without a change event, and never keeps a failure", async () => {
    const registry = fakeRegistry();
    let now = 1_000;
    const list = listFor(registry.prefix, () => now);
    registry.failing = true;
    await expect(list.list()).rejects.toMatchObject({ code: "INTERNAL" });
    registry.failing = false;
    expect(await list.list()).toEqual([agent("a")]);
    registry.current = [agent("c")];
    now += agentListMaxAgeMs;
    expect(await list.list()).toEqual([agent("a")]);
    now += 1;
    expect(await list.list()).toEqual([agent("c")]);
    expect(registry.requests).toBe(3);
    list.close();
  });
});
