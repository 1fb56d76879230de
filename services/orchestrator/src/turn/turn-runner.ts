import type { NatsConnection } from "nats";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import {
  AppError,
  addUsage,
  retryWhileLeaderless,
  lateAnswerNames,
  zeroUsage,
  type AgentDefinition,
  type Logger,
  type RunStartRequest,
  type SessionRecord,
  type SessionStatus,
  type ToolContext,
} from "@agent-orchestrator/shared";
import type { ActiveTurns } from "./active-turns.js";
import { runAgentLoop } from "../loop/agent-loop.js";
import { modelNotConfiguredMessage, type OrchestratorConfig } from "../config.js";
import { loopLimits } from "../loop/loop-limits.js";
import { keptAgentStart } from "../agent/kept-agent-start.js";
import { toolsForAgent } from "../agent/agent-tools.js";
import { RunEventPublisher } from "../events/run-event-publisher.js";
import type { SessionStore, SessionVersion } from "../sessions/session-store.js";
import type { ProjectStore } from "../projects/project-store.js";
import { placeTurn, type TurnPlace } from "./turn-place.js";
import { subagentsForTurn, type SubagentRunner } from "../subagents/subagent-runner.js";
import { buildSystemPrompt } from "../prompt/system-prompt.js";
import type { AgentRules } from "../agent/agent-rules.js";
import { dateNote } from "../loop/conversation-note.js";
import type { ModelRouter } from "../model/model-router.js";
import type { RegistryLookups } from "../agent/registry-lookups.js";
import type { StartCache } from "../agent/start-cache.js";
import type { ToolCaller } from "../loop/tool-caller.js";
import { doneEvent } from "./done-event.js";
import { errorEvent } from "./error-event.js";
import { spentBeforeFailure } from "./turn-spending.js";
import { UsageMeter } from "../model/usage-meter.js";
import { recordTurnEnd } from "./turn-telemetry.js";
import { keptOnFailure } from "./kept-on-failure.js";
import { modelConversation, storedUserMessage } from "./attached-user-message.js";
import { decideTurnAcceptance, type TurnAcceptance } from "./turn-acceptance.js";
import type { Budgets, TurnBudget } from "../spending/budgets.js";
import type { SpendingStore } from "../spending/spending-store.js";
import { DeliverySpending } from "../spending/delivery-spending.js";
import { withinBudget } from "../spending/within-budget.js";
import type { SettingsStore } from "../settings/settings-store.js";
import { turnSettings } from "../settings/turn-settings.js";

export interface TurnRunnerDeps {
  connection: NatsConnection;
  config: OrchestratorConfig;
  logger: Logger;
  store: SessionStore;
  projects: ProjectStore;
  /** the agent and its rules, kept per agent until the registry changes */
  registry: RegistryLookups;
  /** the agents' starts, kept until a file they read changes */
  starts: StartCache;
  tools: ToolCaller;
  /** the model routes: each turn is given the one for its agent, module and project (MODEL_NOT_CONFIGURED when none) */
  models: ModelRouter;
  active: ActiveTurns;
  subjectPrefix: string;
  /** adds a run-queue slot while a subagent runs (RunQueue.lendSlot) */
  lendSlot?: () => () => void;
  /**
   * this turn's: gives the user's turn slot back (fair-share/user-turn-slots.ts) before the final event, so a
   * message the client sends as soon as it hears `done` finds the slot free
   */
  releaseUserSlot?: () => Promise<void>;
  /** what turns spent (docs/models.md "Cost totals"); without it nothing is counted */
  spending?: SpendingStore;
  /** the projects' and users' budgets; without them no turn is refused for its cost */
  budgets?: Budgets;
  /** BMAD's settings of projects and members (docs/settings.md); without them the install's answers apply to everyone */
  settings?: SettingsStore;
}

/**
 * Runs one turn from a work-queue request to its final event: checks the request (agent, session, owner, the
 * chat's project and the owner's role in it) and marks the session running while the agent starts, then runs the
 * loop, saves the conversation with compare-and-set, and publishes exactly one `done` or `error`. `attempt` > 1
 * means an orchestrator died during this turn and this one takes it over.
 */
export async function runTurn(deps: TurnRunnerDeps, request: RunStartRequest, attempt: number): Promise<void> {
  const { config, store, tools, active, subjectPrefix } = deps;
  const log = deps.logger.child({ sessionId: request.session_id, runId: request.run_id, attempt });
  const startedAt = performance.now();
  const events = new RunEventPublisher(deps.connection, request.session_id, request.run_id, subjectPrefix);
  const controller = new AbortController();
  const endsAt = Date.now() + config.TURN_TIMEOUT_MS;
  const deadline = setTimeout(
    () => controller.abort(new AppError("TURN_TIMEOUT", `The turn took longer than ${config.TURN_TIMEOUT_MS} ms and was stopped`)),
    config.TURN_TIMEOUT_MS,
  );
  active.add(request.session_id, request.run_id, controller);

  let accepted: AcceptedTurn | undefined;
  // stops the agent's start of a turn that is not accepted
  const dropStart = new AbortController();
  // what the loop adds, kept here so that an answer cut at its size limit is saved (keptOnFailure)
  const added: ChatCompletionMessageParam[] = [];
  // each model call's cost goes into the totals as the call ends, its subagents' calls by themselves
  // (delivery-spending.ts), so the budgets, asked before each model call, see what every running turn has spent
  const spending = new DeliverySpending(deps.spending, { runKey: `${request.run_id}:${attempt}`, user: request.owner }, log);
  let budget: TurnBudget | undefined;
  const checkBudget = (): Promise<void> => budget?.check(spending.unstoredCost) ?? Promise.resolve();
  // every model call's tokens and the subagents', kept whatever becomes of the turn (usage-meter.ts)
  let meter: UsageMeter | undefined;
  let subagents: SubagentRunner | undefined;
  try {
    const rules = getAgentRules(deps, request.agent_id, log);
    const agent = await deps.registry.agent(request.agent_id);
    const place = await placeTurn({ sessions: store, projects: deps.projects }, request);
    // the agent's route: by its id, its module and the chat's project (docs/models.md "Routes")
    const routed = deps.models.pick({ agent: agent.id, module: agent.bundleName, project: place.projectId });
    if (!routed) throw new AppError("MODEL_NOT_CONFIGURED", modelNotConfiguredMessage);
    meter = new UsageMeter(withinBudget(routed.caller, checkBudget), routed.price, (usage) => spending.call(usage));
    // what the tools write is the project's, authored by the chat's owner and its agent
    const context: ToolContext = {
      session_id: request.session_id,
      bundle_path: agent.bundlePath,
      project_id: place.projectId,
      user: request.owner,
      agent_id: agent.id,
      ...(deps.settings
        ? { settings: await turnSettings(deps.settings, { projectId: place.projectId, projectName: place.projectName, user: request.owner, callerName: request.caller_name }) }
        : {}),
    };
    // the start only reads the agent's own files and records nothing, so it runs while the session is accepted;
    // a refused turn reports its refusal, and its start is stopped and never seen
    const starting = keptAgentStart(deps, agent, context, `${request.run_id}:${attempt}:start`, AbortSignal.any([controller.signal, dropStart.signal]));
    starting.catch(() => undefined);
    budget = await deps.budgets?.forTurn(place.projectId, request.owner);
    const acceptance = await acceptTurn(deps, request, attempt, agent, place, checkBudget);
    if ("dropped" in acceptance) return log.info({ decision: acceptance.dropped }, "the turn is already running or has ended; this delivery is dropped");
    accepted = acceptance;
    spending.placed(place.projectId, agent.id);
    events.emit({ type: "session", agent_id: agent.id, project_id: place.projectId, attempt, model: routed.model });
    const start = await starting;
    const toolNames = toolsForAgent(agent, { subagents: true });
    // kept as typed, its attachments beside it; the model reads them composed (attached-user-message.ts)
    const userMessage = storedUserMessage(request);
    subagents = subagentsForTurn(deps, {
      sessionId: request.session_id,
      runId: request.run_id,
      owner: request.owner,
      callerName: request.caller_name,
      projectId: place.projectId,
      agentId: agent.id,
      depth: 0,
      deadline: endsAt,
      emit: (event) => events.emit(event),
    });
    const output = await runAgentLoop({
      model: meter,
      messages: [
        { role: "system", content: buildSystemPrompt(agent, start, { rules: await rules, tools: toolNames, lateAnswers: lateAnswerNames(context.settings) }) },
        ...modelConversation([...accepted.session.messages, userMessage]),
      ],
      conversationNote: dateNote(new Date()),
      tools,
      toolNames,
      context,
      runId: `${request.run_id}:${attempt}`,
      emit: (event) => events.emit(event),
      signal: controller.signal,
      limits: loopLimits(config),
      ...(subagents ? { subagents } : {}),
      added,
    });
    // the subagents' tokens are this turn's too, a timed-out one's once it has reported
    await subagents?.settled();
    const usage = addUsage(output.usage, subagents?.usage ?? zeroUsage());
    const session: SessionRecord = {
      ...accepted.session,
      messages: [...accepted.session.messages, userMessage, ...output.added] as SessionRecord["messages"],
      usage: addUsage(accepted.session.usage, usage),
      turns: accepted.session.turns + 1,
    };
    // counted before the session is saved: a crash between the two runs the turn again, and both deliveries were paid for
    await spending.endTurn(usage);
    // the final state is saved before the final event, so a client that hears `done` reads it
    await finishSession(store, session, "completed", accepted.version);
    await deps.releaseUserSlot?.();
    events.finish(doneEvent(output, usage, subagents, session.usage, routed.model));
    log.info({ ...recordTurnEnd({ agentId: agent.id, outcome: "completed", startedAt, output, usage }), model: routed.model }, "turn completed");
  } catch (error) {
    const status: SessionStatus = AppError.is(error) && error.code === "CANCELLED" ? "cancelled" : "failed";
    // the tokens spent before it failed count as a success's do: in the session, the error event and the metrics
    const spent = await spentBeforeFailure(meter, subagents);
    const sessionUsage = accepted ? addUsage(accepted.session.usage, spent?.usage ?? zeroUsage()) : undefined;
    // an agent id the registry did not confirm is the client's text: never a metric label
    const ended = recordTurnEnd({
      agentId: accepted?.agent.id ?? "unknown",
      outcome: AppError.is(error) ? error.code : "INTERNAL",
      startedAt,
      ...(spent ? { usage: spent.usage } : {}),
    });
    if (AppError.is(error)) log.warn({ ...ended, code: error.code, cause: describeCause(error.cause) }, error.message);
    else log.error({ ...ended, err: error }, "turn failed");
    if (accepted) {
      await spending.endTurn(spent?.usage);
      const { session } = accepted;
      await finishSession(store, { ...keptOnFailure(error, session, storedUserMessage(request), added), usage: sessionUsage ?? session.usage }, status, accepted.version).catch((saveError: unknown) => log.error({ err: saveError }, "session status not saved"));
    }
    await deps.releaseUserSlot?.();
    events.finish(errorEvent(error, spent, sessionUsage));
  } finally {
    dropStart.abort();
    clearTimeout(deadline);
    active.remove(request.session_id, request.run_id);
    // the work-queue message is acknowledged after this returns: only once the events are kept
    const lost = await events.settled();
    if (lost) log.error({ err: lost }, "the turn's events could not all be stored in RUN_EVENTS");
  }
}

interface AcceptedTurn {
  session: SessionRecord;
  version: SessionVersion;
  agent: AgentDefinition;
}

/** A delivery that ends without a word: the delivery that runs or ran its turn answers its client. */
interface DroppedTurn {
  dropped: Exclude<TurnAcceptance, "accept" | "busy">;
}

/**
 * Marks the session running for this turn (turn-acceptance.ts decides whether it may), or refuses it: a new chat
 * is created running in one KV create; a turn of an existing chat is written with compare-and-set on the head it
 * was decided from, so of two turns that read the same idle head one is marked and the other is SESSION_BUSY.
 */
async function acceptTurn(
  deps: TurnRunnerDeps,
  request: RunStartRequest,
  attempt: number,
  agent: AgentDefinition,
  place: TurnPlace,
  admit: () => Promise<void>,
): Promise<AcceptedTurn | DroppedTurn> {
  if (request.new_session) {
    // past a budget, a new chat is not made; unless it exists already (a redelivery), which the checks below decide
    const refused = await admit().then(
      () => undefined,
      (error: unknown) => error,
    );
    // the chat's pointers, then its head in one KV create; if the id exists, this is a redelivery and the checks below apply
    const created = refused
      ? undefined
      : await retryWhileLeaderless(() =>
          deps.store.createRunning({ id: request.session_id, agentId: agent.id, owner: request.owner, projectId: place.projectId, runId: request.run_id }),
        );
    if (created) return { session: created.record, version: created.version, agent };
    if (refused && !(await retryWhileLeaderless(() => deps.store.get(request.session_id, request.owner)))) throw refused;
  }
  const stored = place.stored ?? (await retryWhileLeaderless(() => deps.store.get(request.session_id, request.owner)));
  if (!stored) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  const { record } = stored;
  if (record.agent_id !== agent.id) throw new AppError("BAD_REQUEST", `This session belongs to agent ${record.agent_id}`);
  const decision = decideTurnAcceptance({ runId: request.run_id, attempt, session: record, lifetime: deps.config, now: Date.now() });
  if (decision === "busy") throw new AppError("SESSION_BUSY", "A turn is already running in this session");
  if (decision !== "accept") return { dropped: decision };
  // refused unstarted past a budget (BUDGET_EXCEEDED), the session left as it was; a takeover of a turn already marked
  // running was admitted when it started, and its next model call asks the budgets again
  if (!(record.status === "running" && record.run_id === request.run_id)) await admit();
  // a chat an orchestrator from before projects wrote is placed in the project found for it
  if (record.project_id === undefined && !(await retryWhileLeaderless(() => deps.store.point(record.id, record.owner, place.projectId)))) {
    throw new AppError("SESSION_NOT_FOUND", "Session not found");
  }
  const session: SessionRecord = {
    ...record,
    project_id: place.projectId,
    status: "running",
    run_id: request.run_id,
    last_run_id: request.run_id,
    run_started_at: record.run_id === request.run_id && record.run_started_at ? record.run_started_at : new Date().toISOString(),
  };
  const version = await retryWhileLeaderless(() => deps.store.update(session, stored.version));
  return { session, version, agent };
}

/**
 * The agent file's menu handlers and rules (docs/design.md "Activation documents"). They enrich the prompt; a
 * registry that cannot give them does not stop the turn.
 */
async function getAgentRules(deps: TurnRunnerDeps, agentId: string, log: Logger): Promise<AgentRules> {
  try {
    return await deps.registry.rules(agentId);
  } catch (error) {
    log.warn({ err: error }, "activation document unavailable; prompt built without the agent file's rules");
    return { handlers: {}, rules: [] };
  }
}

function finishSession(store: SessionStore, session: SessionRecord, status: SessionStatus, version: SessionVersion): Promise<SessionVersion> {
  return retryWhileLeaderless(() => store.update({ ...session, status, run_id: null, run_started_at: null }, version));
}

const describeCause = (cause: unknown): string | undefined => (cause instanceof Error ? `${cause.name}: ${cause.message}` : undefined);
