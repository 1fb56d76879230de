/**
 * Fault 5 (docs/security.md case 70): SIGTERM each service under load. Two replicas of every
 * service run while clients keep sending turns; one replica of each is stopped in turn. It must drain (its
 * in-flight work finishes, or goes back to the work queue for the other replica) and exit 0 within its
 * deadline, and no client turn may fail or lose an event.
 */
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testNatsCredentials } from "@agent-orchestrator/testing/nats-harness";
import type { ServiceProcess, ServiceProcessName } from "@agent-orchestrator/testing/service-processes";
import { streamChat } from "@agent-orchestrator/testing/faults/chat-client";
import { startContinuousLoad, type ContinuousLoad } from "@agent-orchestrator/testing/faults/continuous-load";
import { loadMessage, loadResponder } from "@agent-orchestrator/testing/faults/load-responder";
import { checkTurn } from "@agent-orchestrator/testing/faults/run-load";
import { permissionViolations, startFaultSystem, waitForReplicas, type FaultSystem } from "@agent-orchestrator/testing/faults/fault-system";

const turnTimeoutMs = 20_000;
/** the deadlines the services' mains give themselves (service-lifecycle.ts; the orchestrator's: its turn timeout + 5 s) */
const deadlineMs: Record<ServiceProcessName, number> = { registry: 10_000, "tool-runner": 10_000, orchestrator: turnTimeoutMs + 5_000, gateway: 10_000 };

let system: FaultSystem;
let load: ContinuousLoad;
let observer: NatsConnection;
/** requests per tool call id: a call sent twice was lost by a stopping tool-runner and retried */
const toolRequests = new Map<string, number>();
const exits: Array<{ name: ServiceProcessName; code: number | null; ms: number }> = [];

/** SIGTERMs a process and waits for it to exit; records its code and how long it took. */
async function terminate(name: ServiceProcessName, victim: ServiceProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  victim.child.kill("SIGTERM");
  const [code] = (await once(victim.child, "exit")) as [number | null];
  const exit = { name, code, ms: Date.now() - started };
  exits.push(exit);
  return exit;
}

/** Waits until the load has finished `count` more turns, so work is in flight everywhere. */
async function underLoad(count = 8): Promise<void> {
  const target = load.finished + count;
  while (load.finished < target) await sleep(25);
}

beforeAll(async () => {
  system = await startFaultSystem({
    responder: loadResponder(200),
    replicas: { registry: 2, "tool-runner": 2, orchestrator: 2, gateway: 2 },
    env: { TOOL_TIMEOUT_MS: "3000", TURN_TIMEOUT_MS: String(turnTimeoutMs) },
    // the turns in flight when a replica stops are what this counts, not one user's share (USER_MAX_CONCURRENT_TURNS)
    envFor: { orchestrator: { USER_MAX_CONCURRENT_TURNS: "0" } },
  });
  observer = await connect({ servers: system.nats.url, user: "admin", pass: testNatsCredentials("admin").NATS_PASSWORD });
  observer.subscribe("tool.*", {
    callback: (_error, message) => {
      const callId = message.json<{ call_id: string }>().call_id;
      toolRequests.set(callId, (toolRequests.get(callId) ?? 0) + 1);
    },
  });
  load = startContinuousLoad(system.gatewayUrls[0] as string, 8);
}, 60_000);

afterAll(async () => {
  await load?.stop();
  await observer?.close();
  await system?.stop();
  console.info(`sigterm drain: ${exits.map((exit) => `${exit.name} exited ${exit.code} in ${exit.ms} ms`).join("; ")}`);
});

// one scenario in steps: each stop happens under the load the earlier steps left running, and the last step
// checks every turn of the whole run; the steps keep their order in a shuffled run
describe("SIGTERM of each service under load", { shuffle: false }, () => {
  for (const name of ["registry", "tool-runner", "orchestrator"] as const) {
    it(`stops a ${name} replica cleanly: exit 0 within its deadline, the other replica carries on`, async () => {
      await underLoad();
      const victim = system.processes[name][1] as ServiceProcess;
      // just after it finished a turn, while it runs others (each orchestrator logs every turn it completes)
      if (name === "orchestrator") await victim.waitForLine((line) => line["msg"] === "turn completed" && line["time"] !== undefined && Date.parse(String(line["time"])) > Date.now() - 50);
      const exit = await terminate(name, victim);
      expect(exit.code).toBe(0);
      expect(exit.ms).toBeLessThan(deadlineMs[name]);
      expect(victim.lines.some((line) => line["msg"] === "stopped")).toBe(true);
      await underLoad();
    }, 60_000);
  }

  it("lets the stopping orchestrator finish the turns it was running, with no error", () => {
    const victim = system.processes.orchestrator[1] as ServiceProcess;
    const stopping = victim.lines.findIndex((line) => line["msg"] === "stopping");
    const finishedAfter = victim.lines.slice(stopping).filter((line) => line["msg"] === "turn completed").length;
    // how many it had depends on timing; that none was lost is checked on the clients' side below
    console.info(`sigterm drain: the stopping orchestrator finished ${finishedAfter} turn(s) it was running`);
    expect(victim.lines.filter((line) => Number(line["level"]) >= 50)).toEqual([]);
  });

  it("stops a gateway with turns streaming through it: every stream ends with done, then it exits 0", async () => {
    const gateway = system.gatewayUrls[1] as string;
    const tokens = Array.from({ length: 4 }, (_unused, index) => `gw${index}${Date.now()}`);
    const turns = await Promise.all(tokens.map((token) => streamChat(gateway, { agent_id: "idea-coach", message: loadMessage(token) })));
    await Promise.all(turns.map((turn) => turn.until((event) => event.type === "session")));
    const exit = terminate("gateway", system.processes.gateway[1] as ServiceProcess);
    const results = await Promise.all(turns.map((turn) => turn.done));
    expect(results.map((events, index) => checkTurn(tokens[index] as string, events))).toEqual([undefined, undefined, undefined, undefined]);
    expect(await exit).toMatchObject({ code: 0 });
    expect((await exit).ms).toBeLessThan(deadlineMs.gateway);
    await expect(fetch(`${gateway}/healthz`)).rejects.toThrow();
  }, 60_000);

  it("kept every client turn whole: no error, no lost or foreign event, no tool call lost and retried", async () => {
    const { turns, problems } = await load.stop();
    console.info(`sigterm drain: ${turns} turns under load, ${problems.length} with a problem`);
    expect(problems).toEqual([]);
    expect(turns).toBeGreaterThan(20);
    expect([...toolRequests.entries()].filter(([, count]) => count > 1)).toEqual([]);
    // two of each service started on existing streams and stopped: every JetStream path they took is allowed
    expect(permissionViolations(system.nats)).toEqual([]);
    await waitForReplicas(system.gatewayUrls[0] as string, { registry: 1, "tool-runner": 1, orchestrator: 1, gateway: 1 });
  }, 60_000);
});
