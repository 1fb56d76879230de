import { connectNats, createLogger, loadEnv, runService, startTracing, telemetryEnvSchema } from "@agent-orchestrator/shared/runtime";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import { gatewayConfigProblem, gatewayEnvSchema } from "./config.js";
import { startGateway } from "./gateway-service.js";

const config = loadEnv(gatewayEnvSchema);
const problem = gatewayConfigProblem(config);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
const logger = createLogger(serviceNames.gateway, config.LOG_LEVEL);
await runService(logger, {
  async start() {
    const tracing = await startTracing(serviceNames.gateway, loadEnv(telemetryEnvSchema), logger);
    const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.gateway, logger });
    const gateway = await startGateway({ connection, config, logger }).catch((error: unknown) => {
      // an unreachable OpenID provider (OIDC_ISSUER) is told in one line, not a stack
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
    // which peers may name the client address (TRUSTED_PROXIES) decides what every per-address limit counts
    const trustedProxies = String(config.TRUSTED_PROXIES);
    if (config.OIDC_ISSUER) logger.info({ url: gateway.url, issuer: config.OIDC_ISSUER, tokens: config.AUTH_TOKENS !== undefined, trustedProxies }, "gateway listening; OpenID Connect sign-in or bearer tokens required");
    else if (config.AUTH_TOKENS) logger.info({ url: gateway.url, users: new Set(config.AUTH_TOKENS.values()).size, trustedProxies }, "gateway listening; bearer tokens required");
    else logger.warn({ url: gateway.url }, "gateway listening on 127.0.0.1 only: AUTH_TOKENS is not set, so every caller is the same local user");
    return { tracing, connection, gateway };
  },
  async stop({ tracing, connection, gateway }) {
    await gateway.stop();
    await connection.drain();
    await tracing.shutdown();
  },
});
