/**
 * The environment `npm start` gives each service: the caller's, less every secret the service does not
 * use. The tool-runner runs the model's scripts and the registry parses project files, so neither may
 * hold the model key, the gateway's tokens, or any other credential the operator's shell happens to have.
 */

/** Variables each service needs that look like secrets; every other secret-looking variable is dropped. */
const secretsUsed: Readonly<Record<string, readonly string[]>> = {
  orchestrator: ["OPENAI_API_KEY", "NATS_PASSWORD"],
  gateway: ["AUTH_TOKENS", "NATS_PASSWORD"],
  registry: ["NATS_PASSWORD"],
  "tool-runner": ["NATS_PASSWORD"],
};

/** Names of credentials: `*_KEY`, `*_SECRET`, `*_PASSWORD`, `*_TOKEN`, `*_CREDENTIALS`, and our AUTH_TOKENS. */
const secretName = /(^|_)(KEY|SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIALS?)$|^AUTH_TOKENS$/i;

export function serviceEnvironment(service: string, environment: NodeJS.ProcessEnv): Record<string, string> {
  const used = secretsUsed[service] ?? [];
  return Object.fromEntries(
    Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined && (!secretName.test(entry[0]) || used.includes(entry[0]))),
  );
}
