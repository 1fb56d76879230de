/**
 * The real system for an eval: NATS (NATS_URL, else a nats-server binary or a container, as the tests find
 * one: test/support/nats-harness.ts) and the four services as processes from their built entry points, the
 * orchestrator pointed at the endpoint under test. Each service gets the caller's environment (the limits of
 * docs/configuration.md, e.g. MODEL_IDLE_TIMEOUT_MS for a slow local model) less the secrets it does not use
 * (scripts/lib/service-env.ts), so only the orchestrator ever holds the endpoint's key.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestNats } from "@agent-orchestrator/testing/nats-harness";
import { healthyGatewayUrl, startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { serviceEnvironment } from "../lib/service-env.js";

export interface EvalSystemSettings {
  bmadRoot: string;
  baseUrl: string;
  model: string;
  /** the endpoint's key; none for a server that needs none */
  apiKey: string | undefined;
  /** the orchestrator's own settings besides (the compaction journey's small window: MODEL_CONTEXT_WINDOW) */
  orchestratorEnv?: Record<string, string>;
}

export interface EvalSystem {
  /** the gateway's base URL */
  url: string;
  /** the last log lines of every service, for a report when something breaks */
  logTail(): string[];
  stop(): Promise<void>;
}

const services = ["registry", "tool-runner", "orchestrator", "gateway"] as const;

export async function startEvalSystem(settings: EvalSystemSettings): Promise<EvalSystem> {
  const nats = await startTestNats();
  const legacyOutputRoot = await mkdtemp(join(tmpdir(), "ao-eval-legacy-"));
  const processes: ServiceProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((service) => service.stop()));
    await nats.stop();
    await rm(legacyOutputRoot, { recursive: true, force: true });
  };
  // the eval's own settings win: every agent answers from the endpoint under test, with its key only (no route's
  // key either), and the eval's client needs no gateway token
  const callerEnvironment = { ...process.env };
  delete callerEnvironment["MODEL_ROUTES"];
  try {
    for (const name of services) {
      const env = serviceEnvironment(name, callerEnvironment);
      delete env["OPENAI_API_KEY"];
      delete env["AUTH_TOKENS"];
      Object.assign(env, {
        NATS_URL: nats.url,
        BMAD_ROOT: settings.bmadRoot,
        OUTPUT_ROOT: legacyOutputRoot,
        OPENAI_BASE_URL: settings.baseUrl,
        LLM_MODEL: settings.model,
        // JetStream reserves each stream's byte limit on disk: an eval needs little
        EVENTS_MAX_BYTES: String(256 * 1024 ** 2),
        RUN_REQUESTS_MAX_BYTES: String(64 * 1024 ** 2),
        SESSIONS_BUCKET_MAX_BYTES: String(512 * 1024 ** 2),
        ...(name === "gateway" ? { PORT: "0" } : {}),
        ...(name === "orchestrator" && settings.apiKey ? { OPENAI_API_KEY: settings.apiKey } : {}),
        ...(name === "orchestrator" ? settings.orchestratorEnv : {}),
      });
      processes.push(startServiceProcess(name, env));
    }
    const url = await healthyGatewayUrl(processes[3] as ServiceProcess, 30_000);
    return {
      url,
      logTail: () => processes.flatMap((service) => service.lines.slice(-5).map((entry) => `${service.name}: ${JSON.stringify(entry)}`)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
