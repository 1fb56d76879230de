import type { NatsConnection } from "nats";
import { connectNats, createLogger } from "@agent-orchestrator/shared/runtime";
import { serviceNames, type ServiceName } from "@agent-orchestrator/shared/wire";
import { gatewayEnvSchema, startGateway } from "@agent-orchestrator/gateway";
import { orchestratorEnvSchema, startOrchestrator } from "@agent-orchestrator/orchestrator";
import { registryEnvSchema, startRegistry } from "@agent-orchestrator/registry";
import { FileStore, startToolRunner, toolRunnerEnvSchema } from "@agent-orchestrator/tool-runner";
import { benchEnv, type BenchEnvOptions } from "./bench-env.js";
import { settings } from "./service-settings.js";

export interface BenchSystemOptions extends BenchEnvOptions {
  /** subjects and JetStream names of this system, so several systems can share one server */
  prefix: string;
  /** `external`: the caller runs the orchestrator elsewhere (measure 9 runs it in a child process), or none runs */
  orchestrator: "in-process" | "external";
  /** settings that differ from benchEnv for this system only */
  overrides?: Record<string, string>;
}

export interface BenchSystem {
  gatewayUrl: string;
  /** the settings every service of this system was started with (also for an external orchestrator) */
  env: Record<string, string>;
  /** the file store of this system's tool-runner (its buckets), for the baselines that call the tools directly */
  files: FileStore;
  stop(): Promise<void>;
}

/**
 * Starts the four services in this process through their exported start functions, each with its own NATS
 * connection (as four processes would have), on one subject prefix. In one process the figures are the
 * most precise (one clock, no scheduler noise between processes); the caveat is that all services share
 * one event loop, which matters only when the CPU is saturated (measure 5 at high concurrency).
 */
export async function startBenchSystem(options: BenchSystemOptions): Promise<BenchSystem> {
  const env = { ...benchEnv(options), ...options.overrides };
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    // no credentials: the bench server lets such clients in as admin, since these prefixed subjects are not in the per-service rules
    const connect = async (service: ServiceName) => {
      const connection = await connectNats({ url: options.natsUrl, service, logger: createLogger(service, "silent"), credentials: null });
      stops.push(() => connection.drain());
      return connection;
    };
    const common = (connection: NatsConnection, service: ServiceName) => ({ connection, logger: createLogger(service, "silent"), subjectPrefix: options.prefix });

    const registryConnection = await connect(serviceNames.registry);
    const registry = await startRegistry({ ...common(registryConnection, serviceNames.registry), config: settings(registryEnvSchema, env) });
    stops.push(() => registry.stop());

    const toolConnection = await connect(serviceNames.toolRunner);
    const toolRunnerConfig = settings(toolRunnerEnvSchema, env);
    const toolRunner = await startToolRunner({ ...common(toolConnection, serviceNames.toolRunner), config: toolRunnerConfig });
    stops.push(() => toolRunner.stop());
    const files = await FileStore.forConfig(toolConnection, options.prefix, toolRunnerConfig);

    if (options.orchestrator === "in-process") {
      const orchestratorConnection = await connect(serviceNames.orchestrator);
      const orchestrator = await startOrchestrator({ ...common(orchestratorConnection, serviceNames.orchestrator), config: settings(orchestratorEnvSchema, env) });
      stops.push(() => orchestrator.stop());
    }

    const gatewayConnection = await connect(serviceNames.gateway);
    const gateway = await startGateway({ ...common(gatewayConnection, serviceNames.gateway), config: settings(gatewayEnvSchema, env) });
    stops.push(() => gateway.stop());
    return { gatewayUrl: gateway.url, env, files, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
