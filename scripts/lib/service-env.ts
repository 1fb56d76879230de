/**
 * The environment `npm start` gives each service: the caller's, less every secret the service does not
 * use, with its own METRICS_PORT. The tool-runner runs the model's scripts and the registry parses project
 * files, so neither may hold the model key, the gateway's tokens, or any other credential the operator's
 * shell happens to have.
 */
import { routeKeyVariables } from "@agent-orchestrator/orchestrator";
import { isMetricsService, type MetricsService } from "./metrics-ports.js";

/**
 * Variables each service needs that look like secrets; every other secret-looking variable is dropped, except
 * the keys the orchestrator's model routes name in `api_key_env` (docs/models.md "Keys").
 */
const secretsUsed: Readonly<Record<string, readonly string[]>> = {
  orchestrator: ["OPENAI_API_KEY", "NATS_PASSWORD"],
  gateway: ["AUTH_TOKENS", "OIDC_CLIENT_SECRET", "NATS_PASSWORD"],
  registry: ["NATS_PASSWORD"],
  "tool-runner": ["NATS_PASSWORD"],
};

/** Names of credentials: `*_KEY`, `*_SECRET`, `*_PASSWORD`, `*_TOKEN`, `*_CREDENTIALS`, and our AUTH_TOKENS. */
const secretName = /(^|_)(KEY|SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIALS?)$|^AUTH_TOKENS$/i;

/**
 * `metricsPorts` (metrics-ports.ts) replaces the caller's METRICS_PORT: a service that serves metrics gets
 * its own port, one that does not (or any, without a plan) gets none, so no two services bind one port.
 */
export function serviceEnvironment(
  service: string,
  environment: NodeJS.ProcessEnv,
  metricsPorts?: Readonly<Record<MetricsService, number>>,
): Record<string, string> {
  const used = [...(secretsUsed[service] ?? []), ...(service === "orchestrator" ? routeKeyVariables(environment["MODEL_ROUTES"]) : [])];
  const kept = Object.fromEntries(
    Object.entries(environment).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[0] !== "METRICS_PORT" && (!secretName.test(entry[0]) || used.includes(entry[0])),
    ),
  );
  return metricsPorts && isMetricsService(service) ? { ...kept, METRICS_PORT: String(metricsPorts[service]) } : kept;
}
