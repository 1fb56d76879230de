/**
 * The system for a fault test: its own nats-server (the permission config, test passwords), the scripted
 * model, and the four services as processes with as many replicas as asked, each connected as its own NATS
 * user. Files live in that server's JetStream: no replica shares a folder with another.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestNats, type TestNats } from "../nats-harness.js";
import { startHttpModel, type Responder, type HttpModel } from "../http-model.js";
import { testServiceEnv } from "../test-system.js";
import { startServiceProcess, type ServiceProcess, type ServiceProcessName } from "../service-processes.js";

export const serviceOrder: readonly ServiceProcessName[] = ["registry", "tool-runner", "orchestrator", "gateway"];

export interface FaultSystemOptions {
  responder: Responder;
  replicas?: Partial<Record<ServiceProcessName, number>>;
  /** settings for every service */
  env?: Record<string, string>;
  /** settings for one kind of service */
  envFor?: Partial<Record<ServiceProcessName, Record<string, string>>>;
  /** the working directory of one kind of service (the repository by default) */
  cwdFor?: Partial<Record<ServiceProcessName, string>>;
  /** a NATS server (or cluster) already started, which the system stops with itself; a fresh one by default */
  nats?: TestNats;
}

/** What one replica gets besides its service's settings. */
export interface ReplicaOptions {
  env?: Record<string, string>;
  cwd?: string;
}

export interface FaultSystem {
  nats: TestNats;
  model: HttpModel;
  /** every process started, by service, in start order */
  processes: Record<ServiceProcessName, ServiceProcess[]>;
  /** the base URL of each gateway, in start order */
  gatewayUrls: string[];
  /** starts one more replica (and waits until it listens, for a gateway), with settings or a working directory of its own */
  startReplica(name: ServiceProcessName, options?: ReplicaOptions): Promise<ServiceProcess>;
  /** the environment one service gets */
  envOf(name: ServiceProcessName): Record<string, string>;
  stop(): Promise<void>;
}

export async function startFaultSystem(options: FaultSystemOptions): Promise<FaultSystem> {
  const nats = options.nats ?? (await startTestNats());
  const model = await startHttpModel({ responder: options.responder });
  // the folder of sessions from before projects that the tool-runner would move at start: empty here
  const legacyOutputRoot = await mkdtemp(join(tmpdir(), "ao-faults-"));
  const processes: Record<ServiceProcessName, ServiceProcess[]> = { registry: [], "tool-runner": [], orchestrator: [], gateway: [] };
  const gatewayUrls: string[] = [];
  const envOf = (name: ServiceProcessName): Record<string, string> => ({
    ...testServiceEnv(nats.url, model.url, legacyOutputRoot),
    ...(name === "gateway" ? { PORT: "0", RATE_LIMIT_PER_MINUTE: "1000000" } : {}),
    ...options.env,
    ...options.envFor?.[name],
  });
  const startReplica = async (name: ServiceProcessName, replica: ReplicaOptions = {}) => {
    const cwd = replica.cwd ?? options.cwdFor?.[name];
    const started = startServiceProcess(name, { ...envOf(name), ...replica.env }, [], cwd === undefined ? {} : { cwd });
    processes[name].push(started);
    if (name === "gateway") {
      const line = await started.waitForLine((entry) => typeof entry["url"] === "string" && String(entry["msg"]).startsWith("gateway listening"));
      gatewayUrls.push(String(line["url"]));
    }
    return started;
  };
  const stop = async () => {
    await Promise.all(Object.values(processes).flat().map((service) => service.stop("SIGKILL")));
    await model.close();
    await nats.stop();
    await rm(legacyOutputRoot, { recursive: true, force: true });
  };
  try {
    for (const name of serviceOrder) {
      for (let index = 0; index < (options.replicas?.[name] ?? 1); index++) await startReplica(name);
    }
    const expected = Object.fromEntries(serviceOrder.map((name) => [name, options.replicas?.[name] ?? 1]));
    await waitForReplicas(gatewayUrls[0] as string, expected);
  } catch (error) {
    await stop();
    throw error;
  }
  return { nats, model, processes, gatewayUrls, startReplica, envOf, stop };
}

/** Waits until /healthz counts exactly `expected` replicas of each service; returns how long it took. */
export async function waitForReplicas(gatewayUrl: string, expected: Record<string, number>, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < timeoutMs) {
    try {
      const health = (await (await fetch(`${gatewayUrl}/healthz`)).json()) as { services?: Record<string, number> };
      last = health;
      if (Object.entries(expected).every(([name, count]) => health.services?.[name] === count)) return Date.now() - started;
    } catch (error) {
      last = String(error);
    }
    await sleep(100);
  }
  throw new Error(`replicas not as expected ${JSON.stringify(expected)} after ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** The nats-server's permission-violation log lines. */
export const permissionViolations = (nats: TestNats): string[] => nats.logLines.filter((line) => /Violation/.test(line));
