import { AppError, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { type AgentDefinition, type RunParent, type ToolContext } from "@agent-orchestrator/shared/wire";
import { modelNotConfiguredMessage } from "../config.js";
import type { ModelCaller } from "../loop/model-caller.js";
import { UsageMeter } from "../model/usage-meter.js";
import { readOnce, type SettingsReads } from "../settings/settings-reads.js";
import { turnSettings } from "../settings/turn-settings.js";
import { projectApprovals } from "../approvals/project-approvals.js";
import { withinBudget } from "../spending/within-budget.js";
import { familyEnded, familyStillRuns, whileFamilyRuns } from "../subagents/family-guard.js";
import type { TurnDeps } from "./turn-deps.js";
import { placeTurn, type TurnPlace } from "./turn-place.js";
import type { AdmittedTurn, TurnState } from "./turn-state.js";

type AdmissionDeps = Pick<TurnDeps, "registry" | "store" | "projects" | "models" | "budgets" | "settings" | "config" | "repositories">;

/**
 * Admits a user's turn, reading only: the agent from the registry, the chat's project and the owner's role in it
 * (turn-place.ts) with the settings alongside, then the route and the budgets. A refusal here (an unknown agent,
 * another user's chat, a viewer, no model configured) is the turn's one `error` event; its session is not touched.
 */
export async function admitTurn(deps: AdmissionDeps, turn: TurnState): Promise<AdmittedTurn> {
  const settings = earlySettings(deps, turn.request.owner);
  // read at once; a refusal names the agent first, as when they were read one after the other
  const [agent, place] = await inOrder(deps.registry.agent(turn.request.agent_id), placeTurn({ sessions: deps.store, projects: deps.projects }, turn.request, settings.known));
  return admitted(deps, turn, agent, place, (model) => model, settings.reads);
}

/**
 * Admits a subagent's turn: only while the user's turn it works for still runs (family-guard.ts), asked once it
 * can be cancelled, so a cancel that comes during the question still reaches it, and again before each model call.
 * It runs as its own agent with that agent's route, in its chat's project, whose project and user pay for it and
 * whose budgets are asked before each of its calls (docs/models.md "Budgets").
 */
export async function admitChildTurn(deps: AdmissionDeps, turn: TurnState, parent: RunParent): Promise<AdmittedTurn> {
  const { request, log } = turn;
  const stillRuns = () => familyStillRuns(deps.store, request.session_id, request.owner, parent, log);
  if (!(await stillRuns())) {
    log.info("the subagent's parent turn has ended before it started; dropped");
    throw familyEnded();
  }
  const agent = await deps.registry.agent(request.agent_id);
  const settings = earlySettings(deps, request.owner);
  const child = await admitted(deps, turn, agent, await childPlace(deps, turn, settings.known), (model) => whileFamilyRuns(model, stillRuns), settings.reads);
  announceTurn(child);
  return child;
}

/** The turn is admitted: from now on it spends in its project, and its client hears where it runs and on which model. */
export function announceTurn(turn: AdmittedTurn): void {
  turn.spending.placed(turn.place.projectId, turn.agent.id);
  turn.events.emit({ type: "session", agent_id: turn.agent.id, project_id: turn.place.projectId, attempt: turn.attempt, model: turn.route.model });
}

/**
 * The settings of a turn, each document read once (settings-reads.ts) and early: the owner's at once, the project's
 * as soon as its id is known (`known`), alongside the project's own read; unheard when the turn is refused.
 */
function earlySettings(deps: Pick<TurnDeps, "settings">, owner: string): { reads: SettingsReads | undefined; known: (projectId: string) => void } {
  const reads = deps.settings && readOnce(deps.settings);
  if (!reads) return { reads, known: () => undefined };
  void reads.member(owner).catch(() => undefined);
  return { reads, known: (projectId) => void reads.project(projectId).catch(() => undefined) };
}

/** Asks the turn's budgets, counting what it spent that the totals do not have yet; BUDGET_EXCEEDED when one is spent. */
export const checkBudget = async (turn: TurnState): Promise<void> => turn.budget?.check(await turn.spending.unstoredCost());

/** Asks the turn's budgets as it is accepted (turn-session.ts): its first model call goes on this answer. */
export const admitBudget = async (turn: TurnState): Promise<void> => turn.budget?.admit(await turn.spending.unstoredCost());

async function admitted(
  deps: AdmissionDeps,
  turn: TurnState,
  agent: AgentDefinition,
  place: TurnPlace,
  guard: (model: ModelCaller) => ModelCaller,
  /** the project's settings document holds both BMAD's answers and the approval policies: read once for both */
  settingsReads: SettingsReads | undefined,
): Promise<AdmittedTurn> {
  const { request } = turn;
  // the agent's route: by its id, its module and the chat's project (docs/models.md "Routes")
  const route = deps.models.pick({ agent: agent.id, module: agent.bundleName, project: place.projectId });
  if (!route) throw new AppError("MODEL_NOT_CONFIGURED", modelNotConfiguredMessage);
  const [budget, settings, approvals, network, commands] = await Promise.all([
    deps.budgets?.forTurn(place.projectId, request.owner, place.project),
    settingsReads && turnSettings(settingsReads, { projectId: place.projectId, projectName: place.projectName, user: request.owner, callerName: request.caller_name }),
    projectApprovals(settingsReads, place.projectId, deps.config.APPROVALS_DEFAULTS),
    // whether run_command's sandbox may use the network (docs/commands.md): off unless the project says so
    settingsReads ? settingsReads.project(place.projectId).then((document) => document.repository?.network === true) : false,
    // run_command is offered only where it can run: in a project with a repository (docs/commands.md)
    deps.repositories?.has(place.projectId) ?? false,
  ]);
  const meter = new UsageMeter(withinBudget(guard(route.caller), () => checkBudget(turn)), route.price, (usage) => turn.spending.call(usage));
  // what the tools write is the project's, authored by the chat's owner and its agent
  const context: ToolContext = {
    session_id: request.session_id,
    bundle_path: agent.bundlePath,
    project_id: place.projectId,
    user: request.owner,
    agent_id: agent.id,
    ...(settings ? { settings } : {}),
    ...(network ? { network } : {}),
    // the chat's branch of the project's repository, and the name the model's commits give its member (docs/repositories.md)
    ...(place.branch === undefined ? {} : { branch: place.branch }),
    ...(request.caller_name === undefined ? {} : { author_name: request.caller_name }),
  };
  return Object.assign(turn, { agent, place, route, budget, meter, context, approvals, commands });
}

/**
 * The chat a subagent works in: its project as its parent names it (a child queued by an orchestrator from before
 * projects reads it from the session's head), and the project's name, its settings' default `project_name`.
 */
async function childPlace(deps: Pick<TurnDeps, "store" | "projects">, turn: TurnState, known: (projectId: string) => void): Promise<TurnPlace> {
  const { request } = turn;
  let projectId = request.project_id;
  if (projectId === undefined) {
    const state = await retryWhileLeaderless(() => deps.store.getState(request.session_id, request.owner));
    if (state?.project_id === undefined) throw new AppError("SESSION_NOT_FOUND", "The subagent's chat has no project");
    projectId = state.project_id;
  }
  known(projectId);
  const project = await deps.projects.get(projectId);
  return { projectId, projectName: project && !project.record.personal ? project.record.name : undefined, project: project?.record, branch: request.branch };
}

/** Both answers once both have come; when both failed, the first one's error. */
async function inOrder<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === "rejected") throw a.reason;
  if (b.status === "rejected") throw b.reason;
  return [a.value, b.value];
}
