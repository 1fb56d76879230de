import { connectNats, createLogger, loadEnv, serviceNames, stopOnSignals } from "@agent-orchestrator/shared";
import { toolRunnerEnvSchema } from "./config.js";
import { startToolRunner } from "./tool-runner-service.js";

// The tool-runner process: `node services/tool-runner/dist/main.js`, configured by environment (README "Configuration").
const config = loadEnv(toolRunnerEnvSchema);
const logger = createLogger(serviceNames.toolRunner, config.LOG_LEVEL);
try {
  const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.toolRunner, logger });
  const runner = await startToolRunner({ connection, config, logger });
  // stop taking calls, let those in flight answer, then drain the connection (docs/security.md case 70)
  stopOnSignals(logger, async () => {
    await runner.stop();
    await connection.drain();
  });
} catch (error) {
  logger.fatal({ err: error }, "tool-runner could not start");
  process.exit(1);
}
