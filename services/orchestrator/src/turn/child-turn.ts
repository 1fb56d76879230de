import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import {
  addUsage,
  AppError,
  retryWhileLeaderless,
  subjects,
  zeroUsage,
  type RunEventBody,
  type RunParent,
  type RunStartRequest,
  type SettingsLayers,
  type ToolContext,
} from "@agent-orchestrator/shared";
import { runAgentLoop } from "../loop/agent-loop.js";
import { toolsForAgent } from "../agent/agent-tools.js";
import { modelNotConfiguredMessage } from "../config.js";
import { loopLimits } from "../loop/loop-limits.js";
import { RunEventPublisher } from "../events/run-event-publisher.js";
import { truncateMiddle } from "../loop/truncate-middle.js";
import type { TurnRunnerDeps } from "./turn-runner.js";
import { buildSubagentPrompt } from "../subagents/subagent-prompt.js";
import { dateNote } from "../loop/conversation-note.js";
import { subagentsForTurn, type SubagentRunner } from "../subagents/subagent-runner.js";
import { doneEvent } from "./done-event.js";
import { errorEvent } from "./error-event.js";
import { spentBeforeFailure } from "./turn-spending.js";
import { UsageMeter } from "../model/usage-meter.js";
import { familyEnded, familyStillRuns, whileFamilyRuns } from "../subagents/family-guard.js";
import type { TurnBudget } from "../spending/budgets.js";
import { withinBudget } from "../spending/within-budget.js";
import { DeliverySpending } from "../spending/delivery-spending.js";
import type { SettingsStore } from "../settings/settings-store.js";
import { turnSettings } from "../settings/turn-settings.js";

export type ChildRunRequest = RunStartRequest & { parent: RunParent };

/** Whether the request came from where only orchestrators may queue a subagent (NATS permissions). */
export const isChildRequestSubject = (request: ChildRunRequest, subject: string, subjectPrefix: string): boolean =>
  request.parent.session_id === request.session_id && subject === subjectPrefix + subjects.runChildRequest(request.session_id, request.parent.run_id);

/**
 * Runs a subagent's turn, queued by the orchestrator running its parent: the agent's persona, the task as
 * the user message, the same session folder (tool context), its own loop and limits, and one final
 * `done` or `error` on its own event subject, which the parent relays and turns into the tool result.
 *
 * It has no session record: the parent holds the session's "one running turn" mark for as long as its
 * children run, its owner check already passed, and the child's conversation belongs to no chat (only its
 * answer does, as the parent's tool result). So a child neither reads nor writes the sessions bucket and
 * cannot collide with its parent's compare-and-set. A redelivered child (its orchestrator died) simply
 * runs again; the parent keeps waiting within the same deadline. It reads the session's head once before it
 * starts and before each model call, to stop when the user's turn it works for has ended (family-guard.ts).
 */
export async function runChildTurn(deps: TurnRunnerDeps, request: ChildRunRequest, attempt: number): Promise<void> {
  const { config, active, subjectPrefix } = deps;
  const { session_id: sessionId, run_id: runId, parent } = request;
  const log = deps.logger.child({ sessionId, runId, parentRunId: parent.run_id, attempt });
  const events = new RunEventPublisher(deps.connection, sessionId, runId, subjectPrefix, subjects.runChildEvents(sessionId, runId), false);
  const emit = (event: RunEventBody) => events.emit(event);
  const controller = new AbortController();
  const timeoutMs = Math.max(0, Math.min(config.SUBAGENT_TIMEOUT_MS, request.expires_at - Date.now()));
  // the parent waits as long and answers SERVICE_TIMEOUT; whichever deadline fires first, the code is the same
  const deadline = setTimeout(
    () => controller.abort(new AppError("SERVICE_TIMEOUT", `The subagent did not finish within ${timeoutMs} ms and was stopped.`)),
    timeoutMs,
  );
  active.add(sessionId, runId, controller);
  const stillRuns = () => familyStillRuns(deps.store, sessionId, request.owner, parent, log);
  // its parent's project and user pay for it: each of its model calls goes into their totals as it ends, and their
  // budgets are asked before each call, seeing what the parent and every other running turn stored (docs/models.md "Budgets")
  const spending = new DeliverySpending(deps.spending, { runKey: `${runId}:${attempt}`, user: request.owner }, log);
  let budget: TurnBudget | undefined;
  const checkBudget = (): Promise<void> => budget?.check(spending.unstoredCost) ?? Promise.resolve();
  // the child's own model calls and its subagents': what it spent, kept whatever becomes of it
  let meter: UsageMeter | undefined;
  let subagents: SubagentRunner | undefined;
  try {
    // checked after it is registered for cancels, so a cancel that comes during the check still reaches it
    if (!(await stillRuns())) {
      log.info("the subagent's parent turn has ended before it started; dropped");
      throw familyEnded();
    }
    const agent = await deps.registry.agent(request.agent_id);
    const projectId = await childProject(deps, request);
    // the route of the agent it runs as, in its chat's project: a child of the same agent takes its parent's route
    const routed = deps.models.pick({ agent: agent.id, module: agent.bundleName, project: projectId });
    if (!routed) throw new AppError("MODEL_NOT_CONFIGURED", modelNotConfiguredMessage);
    spending.placed(projectId, agent.id);
    meter = new UsageMeter(withinBudget(whileFamilyRuns(routed.caller, stillRuns), checkBudget), routed.price, (usage) => spending.call(usage));
    emit({ type: "session", agent_id: agent.id, attempt, model: routed.model });
    budget = await deps.budgets?.forTurn(projectId, request.owner);
    // the same project and chat as its root turn; what it writes is authored by the chat's owner and its own agent
    const context: ToolContext = {
      session_id: sessionId,
      bundle_path: agent.bundlePath,
      project_id: projectId,
      user: request.owner,
      agent_id: agent.id,
      ...(deps.settings ? { settings: await childSettings(deps, deps.settings, projectId, request) } : {}),
    };
    const loopRunId = `${runId}:${attempt}`;
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: buildSubagentPrompt(agent, request.skill ? { skill: request.skill } : {}) },
      { role: "user", content: request.message },
      ...(request.skill ? await preloadSkill(deps, request.skill, context, loopRunId, emit, controller.signal) : []),
    ];
    subagents = subagentsForTurn(deps, {
      sessionId,
      runId,
      owner: request.owner,
      callerName: request.caller_name,
      projectId,
      agentId: agent.id,
      depth: parent.depth,
      deadline: Date.now() + timeoutMs,
      rootRunId: parent.root_run_id ?? parent.run_id,
      emit,
    });
    const output = await runAgentLoop({
      model: meter,
      messages,
      conversationNote: dateNote(new Date()),
      tools: deps.tools,
      toolNames: toolsForAgent(agent, { subagents: true }),
      context,
      runId: loopRunId,
      emit,
      signal: controller.signal,
      limits: { ...loopLimits(config), maxIterations: config.SUBAGENT_MAX_ITERATIONS },
      ...(subagents ? { subagents } : {}),
    });
    await subagents?.settled();
    const usage = addUsage(output.usage, subagents?.usage ?? zeroUsage());
    await spending.endSubagent();
    events.finish(doneEvent(output, usage, subagents, usage, routed.model));
    log.info({ iterations: output.iterations, usage, model: routed.model }, "subagent completed");
  } catch (error) {
    // what it spent goes to its parent on the error event, which sums it into the turn's usage
    const spent = await spentBeforeFailure(meter, subagents);
    if (AppError.is(error)) log.warn({ code: error.code, usage: spent?.usage }, error.message);
    else log.error({ err: error, usage: spent?.usage }, "subagent failed");
    await spending.endSubagent();
    events.finish(errorEvent(error, spent));
  } finally {
    clearTimeout(deadline);
    active.remove(sessionId, runId);
  }
}

/**
 * The project of the chat the subagent works in: its parent names it; a child queued by an orchestrator from
 * before projects reads it from the session's head.
 */
/** The settings of the child's chat: its project's and its owner's, as its root turn had them (docs/settings.md). */
async function childSettings(deps: TurnRunnerDeps, settings: SettingsStore, projectId: string, request: ChildRunRequest): Promise<SettingsLayers> {
  const project = await deps.projects.get(projectId);
  const projectName = project && !project.record.personal ? project.record.name : undefined;
  return turnSettings(settings, { projectId, projectName, user: request.owner, callerName: request.caller_name });
}

async function childProject(deps: TurnRunnerDeps, request: ChildRunRequest): Promise<string> {
  if (request.project_id !== undefined) return request.project_id;
  const state = await retryWhileLeaderless(() => deps.store.getState(request.session_id, request.owner));
  if (state?.project_id === undefined) throw new AppError("SESSION_NOT_FOUND", "The subagent's chat has no project");
  return state.project_id;
}

/**
 * The skill the parent named, loaded before the child's first model call and put into its conversation as
 * its own load_skill call, so the model starts on the skill's instructions. A skill that cannot be loaded
 * ends the child with that error: the parent asked for exactly this skill.
 */
async function preloadSkill(
  deps: TurnRunnerDeps,
  skill: string,
  context: ToolContext,
  runId: string,
  emit: (event: RunEventBody) => void,
  signal: AbortSignal,
): Promise<ChatCompletionMessageParam[]> {
  const callId = "preload_skill";
  const args = { name: skill };
  emit({ type: "tool_call", call_id: callId, name: "load_skill", arguments: args });
  const started = performance.now();
  const result = await deps.tools.call("load_skill", `${runId}:${callId}`, context, args, signal);
  emit({
    type: "tool_result",
    call_id: callId,
    name: "load_skill",
    success: result.success,
    ...(result.success ? {} : { error_code: result.error.code }),
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  });
  if (!result.success) throw new AppError(result.error.code, `The skill ${skill} could not be loaded: ${result.error.message}`);
  return [
    { role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name: "load_skill", arguments: JSON.stringify(args) } }] },
    { role: "tool", tool_call_id: callId, content: truncateMiddle(JSON.stringify(result), deps.config.TOOL_RESULT_MAX_CHARS) },
  ];
}
