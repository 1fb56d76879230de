/**
 * A three-server nats-server cluster with JetStream on loopback ports, for the cluster fault tests. Every
 * member runs deploy/nats/nats-cluster.conf (the production permission config plus a server name and
 * authenticated routes) with the harness's test passwords, each with its own store, so a member can be
 * killed, stopped and started again on the same ports and store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { connect, type JetStreamManager, type NatsConnection } from "nats";
import { startLocalNats, type LocalNats } from "./local-nats.js";
import { natsAdminUser, serverPasswordEnv } from "./nats-users.js";
import { testNatsPasswords, type TestNats } from "./nats-harness.js";
import { freePort } from "./free-port.js";

export const clusterConfigFile = fileURLToPath(new URL("../../deploy/nats/nats-cluster.conf", import.meta.url));

/** Test-only route password, like the harness's user passwords. */
export const testRoutePassword = "testroutepassword0000";

export interface ClusterMember {
  /** its `server_name`, as stream info reports leaders and replicas */
  name: string;
  clientPort: number;
  routePort: number;
  /** the running server, or undefined while it is down */
  server: LocalNats | undefined;
}

export interface TestNatsCluster {
  /** every member's client URL, comma-separated: what NATS_URL gets */
  url: string;
  members: readonly ClusterMember[];
  /** every member's log lines, in one list (each line starts with the member's pid) */
  logLines: string[];
  /** an admin connection to the cluster (kept open until `stop`) */
  manager(): Promise<JetStreamManager>;
  /** the member leading a stream's RAFT group, once it has one */
  streamLeader(stream: string, timeoutMs?: number): Promise<ClusterMember>;
  /** kill -9: no shutdown, no leadership handed over */
  kill(name: string): Promise<void>;
  /** a clean shutdown (SIGTERM) */
  shutdown(name: string): Promise<void>;
  /** starts a stopped member again on its ports and store, and waits until it reports healthy */
  start(name: string): Promise<void>;
  /** waits until every running member's /healthz is ok (JetStream current, streams caught up) */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** one member's local copy of a stream (messages, first and last sequence), from its /jsz */
  localState(name: string, stream: string): Promise<StreamState | undefined>;
  /** the cluster as a `TestNats` for the fault system; it owns the cluster from then on */
  asTestNats(): TestNats;
  stop(): Promise<void>;
}

export interface StreamState {
  messages: number;
  first_seq: number;
  last_seq: number;
}

const memberCount = 3;


export async function startTestNatsCluster(): Promise<TestNatsCluster> {
  const storeRoot = await mkdtemp(join(tmpdir(), "ao-nats-cluster-"));
  const members: ClusterMember[] = [];
  for (let index = 1; index <= memberCount; index++) {
    members.push({ name: `nats-${index}`, clientPort: await freePort(), routePort: await freePort(), server: undefined });
  }
  const routes = Object.fromEntries(members.map((member, index) => [`NATS_ROUTE_${index + 1}`, `nats://route:${testRoutePassword}@127.0.0.1:${member.routePort}`]));
  const logLines: string[] = [];
  const url = members.map((member) => `nats://127.0.0.1:${member.clientPort}`).join(",");

  const member = (name: string): ClusterMember => {
    const found = members.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no cluster member ${name}`);
    return found;
  };
  const launch = async (target: ClusterMember) => {
    target.server = await startLocalNats({
      storeDir: join(storeRoot, target.name),
      configFile: clusterConfigFile,
      port: target.clientPort,
      env: { ...serverPasswordEnv(testNatsPasswords), ...routes, NATS_ROUTE_PASSWORD: testRoutePassword, NATS_SERVER_NAME: target.name },
      args: ["--cluster", `nats://127.0.0.1:${target.routePort}`, "-m", "-1"],
      logLines,
    });
  };

  let admin: NatsConnection | undefined;
  const manager = async () => {
    admin ??= await connect({
      servers: url.split(","),
      user: natsAdminUser,
      pass: testNatsPasswords.admin,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      name: "cluster-test-admin",
    });
    return admin.jetstreamManager({ timeout: 2_000 });
  };

  const healthy = async (target: ClusterMember): Promise<boolean> => {
    if (!target.server?.monitoringUrl) return false;
    try {
      return (await fetch(`${target.server.monitoringUrl}/healthz`)).ok;
    } catch {
      return false;
    }
  };
  const waitHealthy = async (timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = members.filter((candidate) => candidate.server);
      const states = await Promise.all(running.map(healthy));
      if (states.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error(`cluster members not healthy within ${timeoutMs} ms: ${running.filter((_, index) => !states[index]).map((candidate) => candidate.name)}`);
      await sleep(200);
    }
  };
  const stopped = async (target: ClusterMember, signal: NodeJS.Signals) => {
    const server = target.server;
    if (!server) throw new Error(`${target.name} is not running`);
    target.server = undefined;
    const exited = new Promise<void>((resolve) => (server.process.exitCode !== null ? resolve() : server.process.once("exit", () => resolve())));
    server.process.kill(signal);
    await exited;
  };

  const cluster: TestNatsCluster = {
    url,
    members,
    logLines,
    manager,
    async streamLeader(stream, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      for (;;) {
        try {
          const leader = (await (await manager()).streams.info(stream)).cluster?.leader;
          if (leader) return member(leader);
          last = "no leader";
        } catch (error) {
          last = error;
        }
        if (Date.now() > deadline) throw new Error(`stream ${stream} has no leader after ${timeoutMs} ms: ${String(last)}`);
        await sleep(200);
      }
    },
    kill: (name) => stopped(member(name), "SIGKILL"),
    shutdown: (name) => stopped(member(name), "SIGTERM"),
    async start(name) {
      await launch(member(name));
      await waitHealthy();
    },
    waitHealthy,
    async localState(name, stream) {
      const monitoring = member(name).server?.monitoringUrl;
      if (!monitoring) throw new Error(`${name} is not running`);
      const jsz = (await (await fetch(`${monitoring}/jsz?accounts=true&streams=true`)).json()) as {
        account_details?: Array<{ stream_detail?: Array<{ name: string; state: StreamState }> }>;
      };
      const detail = jsz.account_details?.flatMap((account) => account.stream_detail ?? []).find((candidate) => candidate.name === stream);
      return detail && { messages: detail.state.messages, first_seq: detail.state.first_seq, last_seq: detail.state.last_seq };
    },
    asTestNats() {
      return {
        url,
        kind: "binary",
        permissions: true,
        logLines,
        restart: async () => {
          throw new Error("restart a cluster member with kill/shutdown and start");
        },
        stop: () => cluster.stop(),
      };
    },
    async stop() {
      await admin?.close();
      await Promise.all(members.filter((candidate) => candidate.server).map((candidate) => stopped(candidate, "SIGTERM")));
      await rm(storeRoot, { recursive: true, force: true });
    },
  };

  try {
    await Promise.all(members.map(launch));
    await waitHealthy();
    // the JetStream meta leader is elected once the account info answers
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await (await manager()).getAccountInfo();
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(200);
      }
    }
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
