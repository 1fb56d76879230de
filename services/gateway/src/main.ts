import { connectNats, createLogger, loadEnv, serviceNames, startTracing, stopOnSignals, telemetryEnvSchema } from "@agent-orchestrator/shared";
import { gatewayEnvSchema } from "./config.js";
import { startGateway } from "./gateway-service.js";

const config = loadEnv(gatewayEnvSchema);
const logger = createLogger(serviceNames.gateway, config.LOG_LEVEL);
const tracing = await startTracing(serviceNames.gateway, loadEnv(telemetryEnvSchema), logger);
const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.gateway, logger });
const gateway = await startGateway({ connection, config, logger });
if (config.AUTH_TOKENS) logger.info({ url: gateway.url, users: new Set(config.AUTH_TOKENS.values()).size }, "gateway listening; bearer tokens required");
else logger.warn({ url: gateway.url }, "gateway listening on 127.0.0.1 only: AUTH_TOKENS is not set, so every caller is the same local user");

stopOnSignals(logger, async () => {
  await gateway.stop();
  await connection.drain();
  await tracing.shutdown();
});
