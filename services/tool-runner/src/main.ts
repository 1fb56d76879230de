import { connectNats, createLogger, loadEnv, runService, startMetricsServer, startTracing, telemetryEnvSchema } from "@agent-orchestrator/shared/runtime";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import { toolRunnerEnvSchema } from "./config.js";
import { toolRunnerMetrics } from "./tool-runner-metrics.js";
import { startToolRunner } from "./tool-runner-service.js";

// The tool-runner process: `node services/tool-runner/dist/main.js`, configured by environment (docs/configuration.md "tool-runner").
const config = loadEnv(toolRunnerEnvSchema);
const telemetry = loadEnv(telemetryEnvSchema);
const logger = createLogger(serviceNames.toolRunner, config.LOG_LEVEL);
try {
  // a signal while the tool-runner is still starting (it sets up its stores and checks the script sandbox)
  // waits for the start, then stops what it started (docs/security.md case 143)
  await runService(logger, {
    async start() {
      const tracing = await startTracing(serviceNames.toolRunner, telemetry, logger);
      const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.toolRunner, logger });
      const runner = await startToolRunner({ connection, config, logger });
      const metrics =
        telemetry.METRICS_PORT === undefined
          ? undefined
          : await startMetricsServer({ registry: toolRunnerMetrics.registry, port: telemetry.METRICS_PORT, host: telemetry.METRICS_HOST, logger });
      return { tracing, connection, runner, metrics };
    },
    async stop({ tracing, connection, runner, metrics }) {
      // stop taking calls, let those in flight answer, then drain the connection (docs/security.md case 70)
      await runner.stop();
      await connection.drain();
      await metrics?.close();
      await tracing.shutdown();
    },
  });
} catch (error) {
  logger.fatal({ err: error }, "tool-runner could not start");
  process.exit(1);
}
