import { connectNats, createLogger, loadEnv, runService, startTracing, telemetryEnvSchema } from "@agent-orchestrator/shared/runtime";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import { registryEnvSchema } from "./config.js";
import { startRegistry } from "./registry-service.js";

/** The registry process: `node services/registry/dist/main.js`, configured by environment (see config.ts). */
const config = loadEnv(registryEnvSchema);
const logger = createLogger(serviceNames.registry, config.LOG_LEVEL);
await runService(logger, {
  async start() {
    const tracing = await startTracing(serviceNames.registry, loadEnv(telemetryEnvSchema), logger);
    const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.registry, logger });
    const registry = await startRegistry({ connection, config, logger });
    return { tracing, connection, registry };
  },
  async stop({ tracing, connection, registry }) {
    await registry.stop();
    await connection.drain();
    await tracing.shutdown();
  },
});
