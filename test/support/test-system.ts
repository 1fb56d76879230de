/**
 * The whole system for an end-to-end test: a private nats-server, the scripted model, and the four services
 * as processes, stopped and cleaned up together. Every file the services keep is in that server's JetStream
 * (docs/projects.md "Storage"): a test reads them through the API (`/api/projects/<id>/files`,
 * `/api/sessions/<id>/files`), never from a folder.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestNats } from "./nats-harness.js";
import { startHttpModel, type Responder, type HttpModel } from "./http-model.js";
import { repoRoot, startSystem, type ServiceProcess } from "./service-processes.js";

export interface TestSystem {
  /** the gateway's base URL */
  url: string;
  processes: ServiceProcess[];
  model: HttpModel;
  /** the environment the services were started with (to start more replicas alike) */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The settings every service of a test system gets: its NATS server, the BMAD install, the scripted model.
 * `legacyOutputRoot` is the folder of sessions written before projects, which the tool-runner moves into
 * the file store at start (an empty temp folder: nothing to move, and never a folder of the repository).
 */
export function testServiceEnv(natsUrl: string, modelUrl: string, legacyOutputRoot: string): Record<string, string> {
  return {
    NATS_URL: natsUrl,
    BMAD_ROOT: repoRoot,
    OUTPUT_ROOT: legacyOutputRoot,
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: "test-key",
    LLM_MODEL: "scripted",
    // JetStream reserves each stream's byte limit on disk: small ones let tests run where the disk is small
    EVENTS_MAX_BYTES: String(256 * 1024 ** 2),
    RUN_REQUESTS_MAX_BYTES: String(64 * 1024 ** 2),
    SESSIONS_BUCKET_MAX_BYTES: String(512 * 1024 ** 2),
    AUDIT_MAX_BYTES: String(64 * 1024 ** 2),
  };
}

export async function startTestSystem(options: { responder: Responder; env?: Record<string, string> }): Promise<TestSystem> {
  // a server of its own: these services use the real subjects, which other test files must not share
  const nats = await startTestNats();
  const model = await startHttpModel({ responder: options.responder });
  const legacyOutputRoot = await mkdtemp(join(tmpdir(), "ao-legacy-outputs-"));
  const cleanUp = async () => {
    await model.close();
    await nats.stop();
    await rm(legacyOutputRoot, { recursive: true, force: true });
  };
  const env = { ...testServiceEnv(nats.url, model.url, legacyOutputRoot), ...options.env };
  try {
    const system = await startSystem(env);
    return {
      url: system.url,
      processes: system.processes,
      model,
      env,
      stop: async () => {
        await system.stop();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
