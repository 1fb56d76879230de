/**
 * The scale-out story on a real three-server NATS cluster (deploy/nats/nats-cluster.conf: the permission
 * config plus authenticated routes), with the services connected to all three URLs and JS_REPLICAS=3:
 * the streams a single-replica set-up left are raised by the orchestrator's start-up; a server killed
 * with kill -9 while 30 turns run, once the leader of RUN_REQUESTS and once the leader of the sessions
 * bucket, loses no turn, no event and no session; a server cut off and brought back catches up; and the
 * services keep answering through a rolling restart of all three servers. The time from the loss of a
 * leader to the first answered chat is printed (README "Scaling out").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jetStreamNames } from "@agent-orchestrator/shared";
import { findNatsServerBinary } from "../../scripts/lib/local-nats.js";
import { natsIsExternal } from "../support/nats-harness.js";
import { startTestNatsCluster, type StreamState, type TestNatsCluster } from "../support/nats-cluster.js";
import { startServiceProcess } from "../support/service-processes.js";
import { clusterResponder, firstAnsweredChat, startTurns, turnProblems } from "./support/cluster-turns.js";
import { startContinuousLoad } from "./support/continuous-load.js";
import { permissionViolations, startFaultSystem, waitForReplicas, type FaultSystem } from "./support/fault-system.js";

/** per model call; a load turn makes four, so 30 turns started together overlap the fault */
const modelLatencyMs = 250;
const turnsUnderFault = 30;
const names = jetStreamNames("");
const sessionsStream = `KV_${names.sessionsBucket}`;
const streams = [names.runRequests, names.runEvents, sessionsStream];

let cluster: TestNatsCluster;
let system: FaultSystem;
const gateway = () => system.gatewayUrls[0] as string;
const recoveries: string[] = [];

/** Every stream's replica count, as the cluster reports it. */
async function replicaCounts(): Promise<Record<string, number>> {
  const manager = await cluster.manager();
  const counts: Record<string, number> = {};
  for (const stream of streams) counts[stream] = (await manager.streams.info(stream)).config.num_replicas;
  return counts;
}

describe.skipIf(natsIsExternal() || !findNatsServerBinary())("a three-server NATS cluster", () => {
  beforeAll(async () => {
    cluster = await startTestNatsCluster();
    // the first orchestrator leaves the streams and the bucket as a single-replica set-up does
    system = await startFaultSystem({
      nats: cluster.asTestNats(),
      responder: clusterResponder(modelLatencyMs),
      env: { CHAT_IDLE_TIMEOUT_MS: "30000" },
      envFor: { orchestrator: { JS_REPLICAS: "1", RUN_CONCURRENCY: "64" }, "tool-runner": { TOOL_CONCURRENCY: "128" } },
    });
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
  });

  it("raises single-replica streams and the sessions bucket to JS_REPLICAS=3 at an orchestrator's start, and says so", async () => {
    expect(await replicaCounts()).toEqual(Object.fromEntries(streams.map((stream) => [stream, 1])));
    const upgraded = startServiceProcess("orchestrator", { ...system.envOf("orchestrator"), JS_REPLICAS: "3" });
    system.processes.orchestrator.push(upgraded);
    await upgraded.waitForLine((line) => line["msg"] === "orchestrator ready", 60_000);
    const raised = upgraded.lines.filter((line) => line["msg"] === "raised the stream's replicas");
    expect(raised.map((line) => [line["stream"], line["from"], line["to"]]).sort()).toEqual(streams.map((stream) => [stream, 1, 3]).sort());
    expect(await replicaCounts()).toEqual(Object.fromEntries(streams.map((stream) => [stream, 3])));
    // the first orchestrator (JS_REPLICAS=1) goes; a second one at 3 finds nothing to raise and lowers nothing
    await system.processes.orchestrator[0]?.stop("SIGTERM");
    const second = startServiceProcess("orchestrator", { ...system.envOf("orchestrator"), JS_REPLICAS: "3" });
    system.processes.orchestrator.push(second);
    await second.waitForLine((line) => line["msg"] === "orchestrator ready", 60_000);
    expect(second.lines.filter((line) => line["msg"] === "raised the stream's replicas")).toEqual([]);
    await waitForReplicas(gateway(), { registry: 1, "tool-runner": 1, orchestrator: 2, gateway: 1 });
    await cluster.waitHealthy();
  }, 90_000);

  for (const stream of [names.runRequests, sessionsStream]) {
    it(`loses no turn, event or session when the leader of ${stream} is killed (kill -9) under ${turnsUnderFault} turns`, async () => {
      const leader = await cluster.streamLeader(stream);
      const requestsBefore = system.model.requests.length;
      const turns = startTurns(gateway(), turnsUnderFault);
      // kill once every turn has reached the model: all of them are mid-turn
      while (system.model.requests.length - requestsBefore < turnsUnderFault) await new Promise((resolve) => setTimeout(resolve, 20));
      const killedAt = Date.now();
      await cluster.kill(leader.name);
      const recoveredMs = await firstAnsweredChat(gateway(), killedAt);
      const newLeader = await cluster.streamLeader(stream);
      const outcomes = await turns;
      recoveries.push(`${stream} leader ${leader.name} killed: first chat answered after ${recoveredMs} ms; new leader ${newLeader.name}`);
      console.info(`cluster: ${recoveries.at(-1)}`);

      // re-attach once the server is back: while a stream's peer is down, nats-server 2.9 can place a
      // replay's ordered consumer on it, and that replay hangs (README "Scaling out")
      await cluster.start(leader.name);
      const problems = await turnProblems(gateway(), outcomes);
      expect(problems.live, "every client saw its own turn, whole, ending in one done").toEqual([]);
      expect(problems.reattached, "a client that re-attaches reads every event once").toEqual([]);
      expect(problems.sessions, "each session holds its turn exactly once").toEqual([]);
      expect(newLeader.name).not.toBe(leader.name);
    }, 120_000);
  }

  it("brings a server that was cut off back up to date: its copy of every stream matches the leader's", async () => {
    const leaders = await Promise.all(streams.map((stream) => cluster.streamLeader(stream)));
    // cut off a server that leads nothing, so the others need no election to go on
    const away = cluster.members.find((member) => !leaders.some((leader) => leader.name === member.name)) ?? cluster.members[0];
    if (!away) throw new Error("no cluster member");
    await cluster.kill(away.name);
    for (const stream of streams) expect((await cluster.streamLeader(stream)).name).not.toBe(away.name);
    // work goes on without it, so it misses messages in every stream
    const outcomes = await startTurns(gateway(), 10);
    expect(outcomes.flatMap((outcome) => (outcome.problem ? [outcome.problem] : []))).toEqual([]);

    await cluster.start(away.name);
    const deadline = Date.now() + 60_000;
    for (const stream of streams) {
      const leader = await cluster.streamLeader(stream);
      // a work queue's acknowledged messages are removed on each server by its own copy of the consumer,
      // so there only the sequence is compared; the RUN_REQUESTS copies differ in count on 2.9 (printed)
      const compared = (state: StreamState | undefined) => (stream === names.runRequests ? state?.last_seq : state);
      for (;;) {
        const [mine, theirs] = await Promise.all([cluster.localState(away.name, stream), cluster.localState(leader.name, stream)]);
        if (mine && JSON.stringify(compared(mine)) === JSON.stringify(compared(theirs))) {
          console.info(`cluster: ${away.name} caught up on ${stream}: ${JSON.stringify(mine)}; leader ${leader.name}: ${JSON.stringify(theirs)}`);
          break;
        }
        if (Date.now() > deadline) expect(compared(mine), `${away.name}'s copy of ${stream}`).toEqual(compared(theirs));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }, 120_000);

  it("keeps answering chats before, during and after a rolling restart of all three servers", async () => {
    const load = startContinuousLoad(gateway(), 4);
    const during: Record<string, number> = {};
    for (const member of cluster.members) {
      const finished = load.finished;
      await cluster.shutdown(member.name);
      // chats go on while it is down: wait for two more to finish before it comes back
      const deadline = Date.now() + 60_000;
      while (load.finished < finished + 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      during[member.name] = load.finished - finished;
      await cluster.start(member.name);
    }
    const after = load.finished;
    while (load.finished < after + 2) await new Promise((resolve) => setTimeout(resolve, 50));
    const report = await load.stop();
    console.info(`cluster: rolling restart: ${report.turns} turns, while each server was down ${JSON.stringify(during)}`);
    expect(report.problems).toEqual([]);
    for (const member of cluster.members) expect(during[member.name], `chats finished while ${member.name} was down`).toBeGreaterThanOrEqual(2);
  }, 150_000);

  it("needs no permission beyond the config: no violation by any service", () => {
    console.info(`cluster recovery times:\n  ${recoveries.join("\n  ")}`);
    expect(permissionViolations(cluster.asTestNats())).toEqual([]);
  });
});
