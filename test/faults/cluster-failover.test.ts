/**
 * The scale-out story on a real three-server NATS cluster (deploy/nats/nats-cluster.conf: the permission
 * config plus authenticated routes), with the services connected to all three URLs and JS_REPLICAS=3:
 * the streams a single-replica set-up left are raised by the orchestrator's start-up; a server killed
 * with kill -9 while 30 turns run, once the leader of RUN_REQUESTS and once the leader of the sessions
 * bucket, loses no turn, no event and no session; a server cut off and brought back catches up; and the
 * services keep answering through a rolling restart of all three servers. The time from the loss of a
 * leader to the first answered chat is printed (docs/operations.md "What the cluster test shows").
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { findNatsServerBinary } from "@agent-orchestrator/testing/local-nats";
import { natsIsExternal } from "@agent-orchestrator/testing/nats-harness";
import { startTestNatsCluster, type StreamState, type TestNatsCluster } from "@agent-orchestrator/testing/nats-cluster";
import { startServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { clusterResponder, failedToolCalls, firstAnsweredChat, startTurns, turnProblems, type TurnOutcome } from "@agent-orchestrator/testing/faults/cluster-turns";
import { permissionViolations, startFaultSystem, waitForReplicas, type FaultSystem } from "@agent-orchestrator/testing/faults/fault-system";

/** per model call; a load turn makes four, so 30 turns started together overlap the fault */
const modelLatencyMs = 250;
const turnsUnderFault = 30;
const names = jetStreamNames("");
const sessionsStream = `KV_${names.sessionsBucket}`;
// the users' turn slots (USER_MAX_CONCURRENT_TURNS) and the spending totals (budgets) are buckets the orchestrator raises with the others
const streams = [names.runRequests, names.runEvents, sessionsStream, `KV_${names.turnSlotsBucket}`, `KV_${names.projectsBucket}`, `KV_${names.spendingBucket}`, `KV_${names.approvalsBucket}`];

let cluster: TestNatsCluster;
let system: FaultSystem;
const gateway = () => system.gatewayUrls[0] as string;
const recoveries: string[] = [];
/** what the start-up in beforeAll saw: replica counts before and after, the streams raised, by whom */
let startUp: { before: Record<string, number>; raised: unknown[][]; after: Record<string, number>; raisedBySecond: number };

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
      // a turn may wait out a leader election and its retries on a loaded machine: give it more than that
      env: { CHAT_IDLE_TIMEOUT_MS: "90000" },
      // one user's 30 turns at once: the cluster's behaviour is what this counts, not one user's share (USER_MAX_CONCURRENT_TURNS)
      envFor: { orchestrator: { JS_REPLICAS: "1", RUN_CONCURRENCY: "64", USER_MAX_CONCURRENT_TURNS: "0" }, "tool-runner": { TOOL_CONCURRENCY: "128", JS_REPLICAS: "3" } },
    });
    // the tool-runner keeps its file store on three servers from the start (JS_REPLICAS=3): with one copy, a
    // killed server would take every file with it. Every case runs on the raised streams with two
    // orchestrators at JS_REPLICAS=3; the first case checks
    // what this start-up did, the others need only its result, so each can run alone
    const before = await replicaCounts();
    const upgraded = startServiceProcess("orchestrator", { ...system.envOf("orchestrator"), JS_REPLICAS: "3" });
    system.processes.orchestrator.push(upgraded);
    await upgraded.waitForLine((line) => line["msg"] === "orchestrator ready", 60_000);
    const raised = upgraded.lines.filter((line) => line["msg"] === "raised the stream's replicas").map((line) => [line["stream"], line["from"], line["to"]]);
    const after = await replicaCounts();
    // the first orchestrator (JS_REPLICAS=1) goes; a second one at 3 finds nothing to raise and lowers nothing
    await system.processes.orchestrator[0]?.stop("SIGTERM");
    const second = startServiceProcess("orchestrator", { ...system.envOf("orchestrator"), JS_REPLICAS: "3" });
    system.processes.orchestrator.push(second);
    await second.waitForLine((line) => line["msg"] === "orchestrator ready", 60_000);
    startUp = { before, raised, after, raisedBySecond: second.lines.filter((line) => line["msg"] === "raised the stream's replicas").length };
    await waitForReplicas(gateway(), { registry: 1, "tool-runner": 1, orchestrator: 2, gateway: 1 });
  }, 180_000);

  // a case that failed half-way may have left a server down: the next one starts on the whole cluster
  beforeEach(async () => {
    for (const member of cluster.members) if (!member.server) await cluster.start(member.name);
    await cluster.waitHealthy();
  }, 90_000);

  afterAll(async () => {
    console.info(`cluster recovery times:\n  ${recoveries.join("\n  ")}`);
    // a reply allowed by `allow_responses` is known only to the server the request came through, so a
    // tool-runner that reconnected elsewhere before answering is refused (its caller hears SERVICE_TIMEOUT and
    // is told the call may have run: a timed-out call is not sent again, docs/security.md case 145)
    if (cluster) console.info(`cluster: permission violations: ${permissionViolations(cluster.asTestNats()).length}`);
    await system?.stop();
  });

  it("raises single-replica streams and the sessions, turn slots, projects, spending and approvals buckets to JS_REPLICAS=3 at an orchestrator's start, and says so", () => {
    expect(startUp.before).toEqual(Object.fromEntries(streams.map((stream) => [stream, 1])));
    expect(startUp.raised.sort()).toEqual(streams.map((stream) => [stream, 1, 3]).sort());
    expect(startUp.after).toEqual(Object.fromEntries(streams.map((stream) => [stream, 3])));
    expect(startUp.raisedBySecond, "a second orchestrator at JS_REPLICAS=3 has nothing to raise").toBe(0);
  });

  for (const stream of [names.runRequests, sessionsStream]) {
    it(`loses no turn, event or session when the leader of ${stream} is killed (kill -9) under ${turnsUnderFault} turns`, async () => {
      const leader = await cluster.streamLeader(stream);
      const requestsBefore = system.model.requests.length;
      const turns = startTurns(gateway(), turnsUnderFault);
      // kill once 30 model calls were made: most turns are mid-turn, and on a loaded machine some are still starting
      // (their sessions being made, their first events on the way), where a request sent through the dying server
      // goes unanswered (docs/operations.md "What the cluster test shows")
      while (system.model.requests.length - requestsBefore < turnsUnderFault) await new Promise((resolve) => setTimeout(resolve, 20));
      const killedAt = Date.now();
      await cluster.kill(leader.name);
      const recoveredMs = await firstAnsweredChat(gateway(), killedAt);
      const newLeader = await cluster.streamLeader(stream);
      const outcomes = await turns;
      recoveries.push(
        `${stream} leader ${leader.name} killed: first chat answered after ${recoveredMs} ms; new leader ${newLeader.name}; ` +
          `failed tool calls ${JSON.stringify(failedToolCalls(outcomes))}`,
      );
      console.info(`cluster: ${recoveries.at(-1)}`);

      // re-attach once the server is back: while a stream's peer is down, nats-server 2.9 can place a
      // replay's ordered consumer on it, and that replay hangs (docs/operations.md "Known limits on nats-server 2.9")
      await cluster.start(leader.name);
      const problems = await turnProblems(gateway(), outcomes);
      expect(problems.live, "every client saw its own turn in order, each event once, ending in one done").toEqual([]);
      expect(problems.reattached, "a client that re-attaches reads every event once").toEqual([]);
      expect(problems.sessions, "each session holds its turn exactly once").toEqual([]);
      expect(newLeader.name).not.toBe(leader.name);
      // a hang guard, not a bound: under a CPU hog the election, 30 turns' retries and the re-attach checks
      // took just over 120 s once, every turn still answered
    }, 240_000);
  }

  it("brings a server that was cut off back up to date: its copy of every stream reaches the leader's last sequence", async () => {
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
      // every message has reached it when its last sequence is at least the leader's; the counts are printed:
      // on 2.9 a copy can keep a work queue's acknowledged messages, or lack ones from before a scale-up, and
      // a server that was killed while it led can keep writes the cluster never acknowledged (its last
      // sequence then stays above the leader's). The leader is asked again each time: a return can move it
      for (;;) {
        const leader = await cluster.streamLeader(stream);
        const [mine, theirs] = await Promise.all([cluster.localState(away.name, stream), cluster.localState(leader.name, stream)]);
        if (mine && theirs && mine.last_seq >= theirs.last_seq) {
          const surplus = mine.last_seq > theirs.last_seq ? ` (${mine.last_seq - theirs.last_seq} sequences above the leader)` : "";
          console.info(`cluster: ${away.name} caught up on ${stream}${surplus}: ${JSON.stringify(mine)}; leader ${leader.name}: ${JSON.stringify(theirs)}`);
          break;
        }
        if (Date.now() > deadline) expect(mine?.last_seq, `${away.name}'s copy of ${stream}`).toBeGreaterThanOrEqual(theirs?.last_seq ?? Number.POSITIVE_INFINITY);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }, 120_000);

  it("keeps answering chats before, during and after a rolling restart of all three servers", async () => {
    const phases: Record<string, TurnOutcome[]> = {};
    let phase = "before";
    let stopping = false;
    // two clients chat back to back; each turn is filed under the phase it ended in
    const clients = Array.from({ length: 2 }, async () => {
      while (!stopping) {
        const [outcome] = await startTurns(gateway(), 1);
        if (outcome) (phases[phase] ??= []).push(outcome);
      }
    });
    const answered = (name: string) => (phases[name] ?? []).filter((outcome) => outcome.events.at(-1)?.type === "done").length;
    const waitForAnswers = async (name: string) => {
      const deadline = Date.now() + 60_000;
      while (answered(name) < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await waitForAnswers("before");
    for (const member of cluster.members) {
      phase = `${member.name} down`;
      await cluster.shutdown(member.name);
      await waitForAnswers(phase);
      phase = `${member.name} starting`;
      await cluster.start(member.name);
    }
    phase = "after";
    await waitForAnswers("after");
    stopping = true;
    await Promise.all(clients);
    const summary = Object.entries(phases).map(([name, outcomes]) => `${name}: ${answered(name)}/${outcomes.length} done`);
    const problems = Object.values(phases).flat().flatMap((outcome) => (outcome.problem ? [outcome.problem] : []));
    console.info(`cluster: rolling restart: ${summary.join(", ")}; failed tool calls ${JSON.stringify(failedToolCalls(Object.values(phases).flat()))}`);
    if (problems.length) console.info(`cluster: rolling restart, turns not whole:\n  ${problems.join("\n  ")}`);
    for (const name of ["before", ...cluster.members.map((member) => `${member.name} down`), "after"]) {
      expect(answered(name), `chats answered: ${name}`).toBeGreaterThanOrEqual(2);
    }
  }, 150_000);
});
