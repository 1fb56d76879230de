import type { NatsConnection } from "nats";
import { AuditPublisher, decodeJson, type Logger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, RunCancel, serviceNames, subjects } from "@agent-orchestrator/shared/wire";
import { ActiveTurns } from "./turn/active-turns.js";
import type { OrchestratorConfig } from "./config.js";
import { ensureRunStreams } from "./nats/jetstream-setup.js";
import { natsMessageBudget } from "./nats/nats-message-budget.js";
import { RegistryLookups } from "./agent/registry-lookups.js";
import { startRunQueue } from "./queue/run-queue.js";
import { StartCache } from "./agent/start-cache.js";
import { addSessionEndpoints } from "./endpoints/session-endpoints.js";
import { addGreetingEndpoints } from "./endpoints/greeting-endpoints.js";
import { addCompactionEndpoint } from "./endpoints/compaction-endpoint.js";
import { SessionStore } from "./sessions/session-store.js";
import { openSessionsBucket } from "./sessions/sessions-bucket.js";
import { InstrumentedToolClient } from "./tools/instrumented-tool-client.js";
import { toolWaitsOf } from "./tools/tool-wait.js";
import { ModelRouter } from "./model/model-router.js";
import { modelRoutesOf, type ModelRouteSpec } from "./model/model-routes.js";
import { addModelRoutesEndpoint } from "./endpoints/model-routes-endpoint.js";
import { checkReplicasPossible, raiseReplicas } from "./nats/stream-replicas.js";
import { tracedSessionStore } from "./sessions/traced-session-store.js";
import { runQueuedTurn, type QueuedTurnDeps } from "./turn/turn-entry.js";
import { UserTurnSlots } from "./fair-share/user-turn-slots.js";
import { addProjectEndpoints } from "./endpoints/project-endpoints.js";
import { ProjectStore } from "./projects/project-store.js";
import { addSettingsEndpoints } from "./endpoints/settings-endpoints.js";
import { addApprovalEndpoints } from "./endpoints/approval-endpoints.js";
import { ApprovalStore } from "./approvals/approval-store.js";
import { ProjectRepositories } from "./projects/project-repositories.js";
import { startApprovalSweeper } from "./approvals/approval-sweeper.js";
import { cancelApprovals } from "./approvals/cancel-approvals.js";
import { queueResume } from "./approvals/resume-queue.js";
import { SettingsStore } from "./settings/settings-store.js";
import { SpendingStore } from "./spending/spending-store.js";
import { Budgets } from "./spending/budgets.js";
import { addUsageEndpoints } from "./endpoints/usage-endpoints.js";
import { moveSessionsIntoProjects } from "./migrations/session-project-migration.js";
import { indexStoredProjects } from "./migrations/project-index-migration.js";
import { moveOneValueSessions, oneValueSessions } from "./migrations/one-value-session-migration.js";

/**
 * A decided call whose turn has not resumed after this long is queued again: longer than RUN_REQUESTS' duplicate
 * window (2 min), so the repeat is not taken for the first and dropped.
 */
const approvalRequeueAfterMs = 180_000;

export interface OrchestratorOptions {
  connection: NatsConnection;
  config: OrchestratorConfig;
  logger: Logger;
  /** prepended to every subject (and names the streams), so tests sharing one NATS server stay apart */
  subjectPrefix?: string;
  /** the model routes main.ts has checked; read from `config` (and the environment's keys) when absent */
  routes?: ModelRouteSpec[];
}

/** The route table of `config`, or the one-line error that stops the start. */
function checkedModelRoutes(config: OrchestratorConfig): ModelRouteSpec[] {
  const result = modelRoutesOf(config);
  if (!result.ok) throw new Error(result.error);
  return result.routes;
}

export interface Orchestrator {
  /** stops taking turns, lets running turns finish, and stops the endpoints */
  stop(): Promise<void>;
}

/**
 * The orchestrator service: takes turns from the `RUN_REQUESTS` work queue and runs them, answers
 * project requests and session look-ups, and stops a running turn when a cancel for its session is broadcast. Any replica
 * can run any turn: sessions live in JetStream KV.
 */
export async function startOrchestrator(options: OrchestratorOptions): Promise<Orchestrator> {
  const { connection, config, logger } = options;
  const prefix = options.subjectPrefix ?? "";
  const names = jetStreamNames(prefix);
  // a bad route table stops the start before anything is created
  const models = new ModelRouter(options.routes ?? checkedModelRoutes(config), config);
  checkReplicasPossible(connection, config.JS_REPLICAS);
  const manager = await connection.jetstreamManager();
  await ensureRunStreams(manager, names, config, prefix);
  const sessionsBucket = await openSessionsBucket(connection, names.sessionsBucket, { maxBytes: config.SESSIONS_BUCKET_MAX_BYTES });
  const store = tracedSessionStore(SessionStore.over(sessionsBucket, { olderShapes: oneValueSessions }));
  // a replica that dies gives its users' slots back once it has missed a renewal for as long as the work queue
  // waits before it hands the replica's turns to another (RUN_ACK_WAIT_MS)
  const userTurns = await UserTurnSlots.open(connection, names.turnSlotsBucket, {
    limit: config.USER_MAX_CONCURRENT_TURNS,
    leaseMs: config.RUN_ACK_WAIT_MS,
    logger,
  });
  const projects = await ProjectStore.open(connection, names.projectsBucket);
  const settings = await SettingsStore.open(connection, names.projectsBucket);
  const approvals = await ApprovalStore.open(connection, names.approvalsBucket);
  const spending = await SpendingStore.open(connection, names.spendingBucket);
  const budgets = new Budgets(spending, projects, { projectMonthly: config.BUDGET_PROJECT_MONTHLY, userDaily: config.BUDGET_USER_DAILY }, logger);
  // a bucket is the stream KV_<bucket>; the stores create it with one replica
  for (const stream of [names.runRequests, names.runEvents, `KV_${names.sessionsBucket}`, `KV_${names.turnSlotsBucket}`, `KV_${names.projectsBucket}`, `KV_${names.spendingBucket}`, `KV_${names.approvalsBucket}`]) {
    await raiseReplicas(manager, stream, config.JS_REPLICAS, logger);
  }
  const migrated = await moveOneValueSessions(sessionsBucket, store);
  if (migrated > 0) logger.info({ migrated }, "sessions moved to the per-turn storage");
  await indexStoredProjects(projects);
  const placed = await moveSessionsIntoProjects(store, projects);
  if (placed > 0) logger.info({ sessions: placed }, `${placed} sessions written before projects moved into their owners' default projects`);
  const active = new ActiveTurns();

  const service = await connection.services.add({
    name: serviceNames.orchestrator,
    version: "0.1.0",
    description: "Runs agent turns: the agentic loop over the model and the file tools",
  });
  // a page of a session's view leaves room in the reply for the session's state
  addSessionEndpoints(service, { connection, config, sessions: store, projects, approvals, subjectPrefix: prefix }, logger, () => natsMessageBudget(connection) - 64 * 1024);
  addProjectEndpoints(service, { connection, config, projects, sessions: store, approvals, subjectPrefix: prefix, forgetProject: (id) => settings.deleteProject(id) }, logger);
  addUsageEndpoints(service, { spending, budgets, projects, subjectPrefix: prefix }, logger);
  addSettingsEndpoints(service, { projects, settings, subjectPrefix: prefix }, logger);
  const audit = new AuditPublisher({ connection, subjectPrefix: prefix, logger });
  // a decision, an expiry or a cancel queues the paused turn's resume: any replica takes it (docs/approvals.md)
  const resume = (record: Parameters<typeof queueResume>[2]) => queueResume(connection, prefix, record);
  addApprovalEndpoints(service, { approvals, sessions: store, projects, subjectPrefix: prefix, audit: (entry) => void audit.record(entry), decided: resume }, logger);
  const sweeper = startApprovalSweeper({ approvals, resume, logger, requeueAfterMs: approvalRequeueAfterMs }, config.APPROVALS_SWEEP_MS);
  addModelRoutesEndpoint(service, { router: models, projects, subjectPrefix: prefix }, logger);

  const cancels = connection.subscribe(prefix + subjects.runCancelAll, {
    callback: (error, message) => {
      if (error) return logger.error({ err: error }, "cancel subscription failed");
      try {
        const cancel = decodeJson(message.data, RunCancel);
        if (active.cancel(cancel.session_id, cancel.run_id)) logger.info({ sessionId: cancel.session_id }, "turn cancelled");
        // a chat paused for a decision holds no turn anywhere: every replica tries to cancel its calls, one wins each
        else void cancelApprovals(approvals, cancel.session_id, cancel.by, resume).then(
          (cancelled) => cancelled.length > 0 && logger.info({ sessionId: cancel.session_id, approvals: cancelled.length }, "paused turn cancelled"),
          (error: unknown) => logger.warn({ err: error, sessionId: cancel.session_id }, "the paused turn's calls could not be cancelled"),
        );
      } catch (decodeError) {
        logger.warn({ err: decodeError }, "invalid cancel ignored");
      }
    },
  });

  const registry = new RegistryLookups({
    connection,
    subjectPrefix: prefix,
    timeoutMs: config.REGISTRY_TIMEOUT_MS,
    maxAgeMs: config.REGISTRY_CACHE_MAX_AGE_MS,
  });
  const registryChanges = registry.watch(logger);

  const consumer = await connection.jetstream().consumers.get(names.runRequests, names.runRequestsConsumer);
  const deps: QueuedTurnDeps = {
    connection,
    config,
    logger,
    store,
    projects,
    registry,
    starts: new StartCache(config.REGISTRY_CACHE_MAX_AGE_MS),
    tools: new InstrumentedToolClient(connection, toolWaitsOf(config), prefix),
    models,
    active,
    subjectPrefix: prefix,
    lendSlot: () => queue.lendSlot(),
    userTurns,
    spending,
    budgets,
    settings,
    approvals,
    // the tool-runner's records of projects' repositories, only read (its bucket)
    repositories: new ProjectRepositories(connection, names.repositoriesBucket),
  };
  addGreetingEndpoints(service, deps);
  addCompactionEndpoint(service, deps);
  const queue = startRunQueue({
    consumer,
    concurrency: config.RUN_CONCURRENCY,
    ackWaitMs: config.RUN_ACK_WAIT_MS,
    logger,
    run: (request, attempt, subject) => runQueuedTurn(deps, request, attempt, subject),
  });

  return {
    stop: async () => {
      await queue.stop();
      await sweeper.stop();
      cancels.unsubscribe();
      registryChanges.unsubscribe();
      await service.stop();
    },
  };
}
