/**
 * Every NATS subject the system uses, in one place. Subjects read general → specific, ids last.
 * Services register their endpoints with the nats.js Services framework, which puts them in a queue group,
 * so adding a replica of a service needs no configuration.
 */

/** Service names as registered with the Services framework (and seen in `$SRV` discovery). */
export const serviceNames = {
  gateway: "gateway",
  orchestrator: "orchestrator",
  toolRunner: "tool-runner",
  registry: "registry",
} as const;
export type ServiceName = (typeof serviceNames)[keyof typeof serviceNames];

export const subjects = {
  /** registry: request/reply */
  registryAgentsList: "registry.agents.list",
  registryAgentsGet: "registry.agents.get",
  /** registry: one agent's activation document (spec/004): structured data plus LLM-ready text */
  registryAgentsActivation: "registry.agents.activation",
  /** registry: every bundle and installed module with its status and warnings */
  registryBundlesList: "registry.bundles.list",
  /** registry: published (not request/reply) after a re-scan that changed agents or bundles */
  registryChanged: "registry.changed",
  /** orchestrator: start a turn of a chat (request/reply; the reply only accepts or refuses the turn) */
  runStart: "agent.run.start",
  /** events of every turn of one session; the orchestrator is the only publisher */
  runEvents: (sessionId: string) => `agent.run.events.${sessionId}`,
  runEventsAll: "agent.run.events.>",
  /** tool-runner: one subject per tool */
  tool: (toolName: string) => `tool.${toolName}`,
  /** tool-runner: create or update a session's folder and manifest.json (called by the orchestrator, never the model) */
  sessionManifestUpdate: "session.manifest.update",
} as const;

/**
 * Each service receives replies on its own inbox prefix, so NATS permissions can keep services from
 * reading each other's replies.
 */
export function inboxPrefixFor(service: ServiceName): string {
  return `_INBOX_${service.replace(/-/g, "_")}`;
}

/** Ids that appear as subject tokens or folder names must be plain tokens: no dots, wildcards or separators. */
export const subjectTokenPattern = /^[A-Za-z0-9_-]{1,128}$/;
