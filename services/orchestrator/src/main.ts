import { connectNats, createLogger, loadEnv, serviceNames, stopOnSignals } from "@agent-orchestrator/shared";
import { isModelConfigured, modelNotConfiguredMessage, orchestratorEnvSchema } from "./config.js";
import { startOrchestrator } from "./orchestrator-service.js";

const config = loadEnv(orchestratorEnvSchema);
const logger = createLogger(serviceNames.orchestrator, config.LOG_LEVEL);
if (!isModelConfigured(config)) logger.warn(modelNotConfiguredMessage);
const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.orchestrator, logger });
const orchestrator = await startOrchestrator({ connection, config, logger });
logger.info({ model: config.LLM_MODEL, baseURL: config.OPENAI_BASE_URL ?? "api.openai.com" }, "orchestrator ready");

stopOnSignals(
  logger,
  async () => {
    await orchestrator.stop();
    await connection.drain();
  },
  config.TURN_TIMEOUT_MS + 5_000,
);
