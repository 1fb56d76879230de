import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger, encodeJson } from "@agent-orchestrator/shared/runtime";
import { subjects, type ActivationReply, type GetAgentReply, type RegistryChanged } from "@agent-orchestrator/shared/wire";
import { RegistryLookups } from "./registry-lookups.js";
import { testAgent } from "../testing/orchestrator-fixture.js";

let connection: NatsConnection;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});

afterAll(async () => {
  await connection.drain();
});

/** A stand-in registry on its own prefix that serves `testAgent` while `present`, counting what it is asked. */
function fakeRegistry() {
  const prefix = `rl${randomUUID().slice(0, 8)}.`;
  const asked = { agent: 0, activation: 0 };
  const state = { present: true, title: "Tester", activation: true };
  const missing = { success: false as const, error: { code: "AGENT_NOT_FOUND" as const, message: "No agent" } };
  connection.subscribe(prefix + subjects.registryAgentsGet, {
    callback: (_error, message) => {
      asked.agent++;
      const reply: GetAgentReply = state.present ? { success: true, agent: { ...testAgent, title: state.title } } : missing;
      message.respond(encodeJson(reply));
    },
  });
  connection.subscribe(prefix + subjects.registryAgentsActivation, {
    callback: (_error, message) => {
      asked.activation++;
      message.respond(encodeJson(state.present && state.activation ? activation(state.title) : (missing satisfies ActivationReply)));
    },
  });
  const lookups = new RegistryLookups({ connection, subjectPrefix: prefix, timeoutMs: 2_000, maxAgeMs: 60_000 });
  /** publishes a change; the lookups have handled it once the flush returns (below) */
  const changed = async (): Promise<void> => {
    const change: RegistryChanged = { instance: "r1", revision: 1, changedAt: new Date().toISOString(), added: [], removed: [], updated: [testAgent.id], bundles: [] };
    connection.publish(prefix + subjects.registryChanged, encodeJson(change));
    // the server hands this connection its own message before the flush's answer
    await connection.flush();
  };
  return { prefix, asked, state, lookups, changed };
}

function activation(rule: string): ActivationReply {
  const persona = { name: "T", title: "T", icon: "", role: "", identity: "", communicationStyle: "", principles: "" };
  return {
    success: true,
    text: "",
    data: {
      type: "agent",
      id: testAgent.id,
      name: "tester",
      module: "tests",
      source: "bundle",
      activation: { steps: [], variables: [], handlers: { workflow: "run it" }, rules: [rule] },
      persona,
      menu: [],
      prompts: [],
    },
  };
}

const silentLogger = createLogger("registry-lookups-test", "silent");

describe("RegistryLookups", () => {
  it("gives a turn the agent with its rules; without rules the turn still runs, without an agent it does not", async () => {
    const kept = fakeRegistry();
    expect(await kept.lookups.agentWithRules(testAgent.id, silentLogger)).toMatchObject({ agent: { id: testAgent.id }, rules: { handlers: { workflow: "run it" }, rules: ["Tester"] } });
    const noRules = fakeRegistry();
    noRules.state.activation = false;
    expect(await noRules.lookups.agentWithRules(testAgent.id, silentLogger)).toMatchObject({ agent: { id: testAgent.id }, rules: { handlers: {}, rules: [] } });
    const gone = fakeRegistry();
    gone.state.present = false;
    await expect(gone.lookups.agentWithRules(testAgent.id, silentLogger)).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
  });

  it("asks the registry once per agent, and again after a registry.changed", async () => {
    const registry = fakeRegistry();
    const watching = registry.lookups.watch(silentLogger);
    expect((await registry.lookups.agent(testAgent.id)).title).toBe("Tester");
    expect((await registry.lookups.rules(testAgent.id)).rules).toEqual(["Tester"]);
    registry.state.title = "Renamed";
    expect((await registry.lookups.agent(testAgent.id)).title).toBe("Tester");
    expect(registry.asked).toEqual({ agent: 1, activation: 1 });

    await registry.changed();
    expect((await registry.lookups.agent(testAgent.id)).title).toBe("Renamed");
    expect((await registry.lookups.rules(testAgent.id)).rules).toEqual(["Renamed"]);
    expect(registry.asked).toEqual({ agent: 2, activation: 2 });
    watching.unsubscribe();
  });

  it("keeps no registry error: an agent that was missing is found once it is there", async () => {
    const registry = fakeRegistry();
    registry.state.present = false;
    await expect(registry.lookups.agent(testAgent.id)).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
    await expect(registry.lookups.rules(testAgent.id)).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
    registry.state.present = true;
    expect((await registry.lookups.agent(testAgent.id)).id).toBe(testAgent.id);
    expect((await registry.lookups.rules(testAgent.id)).handlers).toEqual({ workflow: "run it" });
  });

  it("forgets its answers on a change message that is not valid as well (only registries may publish there)", async () => {
    const registry = fakeRegistry();
    const watching = registry.lookups.watch(silentLogger);
    await registry.lookups.agent(testAgent.id);
    connection.publish(registry.prefix + subjects.registryChanged, encodeJson({ forged: true }));
    await connection.flush();
    await registry.lookups.agent(testAgent.id);
    expect(registry.asked.agent).toBe(2);
    await registry.lookups.agent(testAgent.id);
    expect(registry.asked.agent).toBe(2);
    watching.unsubscribe();
  });
});
