import { resolve } from "node:path";
import type { NatsConnection } from "nats";
import { AppError, addJsonEndpoint, encodeJson, type Logger } from "@agent-orchestrator/shared/runtime";
import {
  ActivationRequest,
  GetAgentRequest,
  ListAgentsRequest,
  ListBundlesRequest,
  SkillRequest,
  HelpCatalogueRequest,
  type HelpCatalogueReply,
  serviceNames,
  subjects,
  type ActivationReply,
  type AgentSummary,
  type GetAgentReply,
  type ListAgentsReply,
  type ListBundlesReply,
  type RegistryChanged,
  type SkillReply,
} from "@agent-orchestrator/shared/wire";
import { buildActivation } from "./activation/activation-document.js";
import { AgentRegistry, type RegistryChange } from "./discovery/agent-registry.js";
import { discoveryLimits, type RegistryConfig } from "./config.js";
import { createDiscoveryContext } from "./discovery/discovery-context.js";
import { buildSkillActivation } from "./activation/skill-activation.js";
import { watchInstall } from "./watch/watch-install.js";
import type { TreeWatcher } from "./watch/watch-tree.js";
import { loadHelpCatalogue } from "./help/help-catalogue.js";

/** The version the registry announces in `$SRV` discovery. */
export const registryVersion = "0.1.0";

/** What `startRegistry` needs; the connection stays the caller's. */
export interface StartRegistryOptions {
  connection: NatsConnection;
  config: RegistryConfig;
  logger: Logger;
  /** prepended verbatim to every subject served and published (tests use a random one to stay isolated) */
  subjectPrefix?: string;
}

/** A started registry. */
export interface RunningRegistry {
  /** stops watching and serving; in-flight requests are answered; the connection is the caller's to drain */
  stop(): Promise<void>;
  /** re-scans now (waiting for a scan in progress first) and publishes a change event if something changed */
  rescan(): Promise<void>;
}

/**
 * Starts the registry: scans BMAD_ROOT once before answering anything (so it never serves an empty list
 * by accident), then serves six JSON endpoints as the Services-framework service `registry` (queue group,
 * so replicas share the load): list agents, get agent, list bundles, an agent's activation, a skill's activation, the install's help catalogue. With REGISTRY_WATCH it
 * re-scans on file changes and publishes `registry.changed` when what it serves changed.
 */
export async function startRegistry(options: StartRegistryOptions): Promise<RunningRegistry> {
  const { connection, config, logger } = options;
  const prefix = options.subjectPrefix ?? "";
  const root = resolve(config.BMAD_ROOT);
  const registry = new AgentRegistry(root, discoveryLimits(config));
  await registry.rescan();
  logScan(logger, registry, "initial scan done");

  const service = await connection.services.add({
    name: serviceNames.registry,
    version: registryVersion,
    description: "BMAD bundle and agent discovery, parsing and activation documents",
  });
  const instance = service.info().id;

  // the whole list is encoded once per scan (each scan makes a new list): every gateway asks for it again after a change
  let encodedList: { agents: AgentSummary[]; data: Uint8Array } | undefined;
  addJsonEndpoint(service, "agents-list", prefix + subjects.registryAgentsList, ListAgentsRequest, async (request): Promise<ListAgentsReply | Uint8Array> => {
    if (request.bundle !== undefined) return { success: true, agents: registry.listAgents(request.bundle) };
    const agents = registry.listAgents();
    if (encodedList?.agents !== agents) encodedList = { agents, data: encodeJson({ success: true, agents } satisfies ListAgentsReply) };
    return encodedList.data;
  }, logger);

  addJsonEndpoint(service, "agents-get", prefix + subjects.registryAgentsGet, GetAgentRequest, async (request): Promise<GetAgentReply> => {
    return { success: true, agent: findAgent(registry, request.agent_id).definition };
  }, logger);

  addJsonEndpoint(service, "agents-activation", prefix + subjects.registryAgentsActivation, ActivationRequest, async (request): Promise<ActivationReply> => {
    const activation = buildActivation(findAgent(registry, request.agent_id), { userContext: request.user_context, variables: request.variables });
    return { success: true, ...activation };
  }, logger);

  // a skill is read when asked for, through caches of its own (not the scan's, which drop what a scan did not see)
  const skills = createDiscoveryContext(root, discoveryLimits(config));
  addJsonEndpoint(service, "skills-get", prefix + subjects.registrySkillsGet, SkillRequest, async (request): Promise<SkillReply> => {
    return { success: true, ...(await buildSkillActivation(skills, request.name, request.user_context)) };
  }, logger);

  // read when asked for: a few dozen rows, and the agents it names are the scan's
  addJsonEndpoint(service, "help-get", prefix + subjects.registryHelpGet, HelpCatalogueRequest, async (): Promise<HelpCatalogueReply> => {
    const agents = registry.listAgents().flatMap((summary) => registry.getAgent(summary.id)?.definition ?? []);
    return { success: true, ...(await loadHelpCatalogue(root, agents)) };
  }, logger);

  addJsonEndpoint(service, "bundles-list", prefix + subjects.registryBundlesList, ListBundlesRequest, async (): Promise<ListBundlesReply> => {
    return { success: true, ...registry.listBundles() };
  }, logger);

  const publish = (change: RegistryChange | undefined) => {
    if (!change) return;
    const event: RegistryChanged = { instance, ...change };
    logScan(logger, registry, "registry changed", event);
    try {
      connection.publish(prefix + subjects.registryChanged, encodeJson(event));
    } catch (error) {
      logger.warn({ err: error }, "change event could not be published");
    }
  };
  const rescan = async () => publish(await registry.rescan());

  let watcher: TreeWatcher | undefined;
  if (config.REGISTRY_WATCH) {
    watcher = await watchInstall({
      root,
      pollMs: config.REGISTRY_POLL_MS,
      debounceMs: config.REGISTRY_DEBOUNCE_MS,
      forcePoll: config.REGISTRY_FORCE_POLL,
      logger,
      onChange: () => void rescan().catch((error: unknown) => logger.error({ err: error }, "re-scan failed")),
    });
  }
  logger.info({ subjects: `${prefix}registry.>`, watch: watcher?.mode ?? "off" }, "registry serving");

  return {
    async stop() {
      watcher?.close();
      await service.stop();
    },
    rescan,
  };
}

function findAgent(registry: AgentRegistry, id: string) {
  const record = registry.getAgent(id);
  if (!record) throw new AppError("AGENT_NOT_FOUND", `No agent with id "${id}"`);
  return record;
}

function logScan(logger: Logger, registry: AgentRegistry, message: string, change?: RegistryChanged): void {
  const { bundles, warnings } = registry.listBundles();
  const all = [...warnings, ...bundles.flatMap((bundle) => bundle.warnings)];
  logger.info({ agents: registry.listAgents().length, sources: bundles.length, warnings: all.length, revision: registry.revision, change }, message);
  // the first few in full: enough to see why a bundle is missing without flooding the log on a bad day
  if (all.length > 0) logger.warn({ warnings: all.slice(0, 50) }, "registry warnings (also in registry.bundles.list)");
}
