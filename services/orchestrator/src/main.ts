import { connectNats, createLogger, loadEnv, runService, startMetricsServer, startTracing, telemetryEnvSchema } from "@agent-orchestrator/shared/runtime";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import { isModelConfigured, modelNotConfiguredMessage, orchestratorEnvSchema } from "./config.js";
import { orchestratorMetrics } from "./orchestrator-metrics.js";
import { startOrchestrator } from "./orchestrator-service.js";
import { modelRoutesOf, routeView } from "./model/model-routes.js";

const config = loadEnv(orchestratorEnvSchema);
const routes = modelRoutesOf(config);
if (!routes.ok) {
  process.stderr.write(`${routes.error}\n`);
  process.exit(1);
}
const telemetry = loadEnv(telemetryEnvSchema);
const logger = createLogger(serviceNames.orchestrator, config.LOG_LEVEL);
await runService(logger, {
  async start() {
    const tracing = await startTracing(serviceNames.orchestrator, telemetry, logger);
    if (!isModelConfigured(config)) {
      logger.warn(routes.routes.length > 0 ? "no default model: the turns of agents no route of MODEL_ROUTES matches answer MODEL_NOT_CONFIGURED" : modelNotConfiguredMessage);
    }
    const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.orchestrator, logger });
    const orchestrator = await startOrchestrator({ connection, config, logger, routes: routes.routes });
    const metrics =
      telemetry.METRICS_PORT === undefined
        ? undefined
        : await startMetricsServer({ registry: orchestratorMetrics.registry, port: telemetry.METRICS_PORT, host: telemetry.METRICS_HOST, logger });
    logger.info(
      { model: config.LLM_MODEL, baseURL: config.OPENAI_BASE_URL ?? "api.openai.com", routes: routes.routes.map(routeView), tracing: tracing.enabled },
      "orchestrator ready",
    );
    return { tracing, connection, orchestrator, metrics };
  },
  async stop({ tracing, connection, orchestrator, metrics }) {
    await orchestrator.stop();
    await connection.drain();
    await metrics?.close();
    // the spans of the turns that just finished leave before the process does
    await tracing.shutdown();
  },
  deadlineMs: config.TURN_TIMEOUT_MS + 5_000,
});
