import { AppError } from "@agent-orchestrator/shared/runtime";
import { type AgentDefinition, type RunParent, type ToolContext } from "@agent-orchestrator/shared/wire";
import { modelNotConfiguredMessage } from "../config.js";
import type { ModelCaller } from "../loop/model-caller.js";
import { UsageMeter } from "../model/usage-meter.js";
import { turnSettings } from "../settings/turn-settings.js";
import { projectApprovals } from "../approvals/project-approvals.js";
import { DeliverySpending } from "../spending/delivery-spending.js";
import { budgetCheck, withinBudget } from "../spending/within-budget.js";
import { familyEnded, familyStillRuns, whileFamilyRuns } from "../subagents/family-guard.js";
import type { TurnDeps } from "./turn-deps.js";
import { placeChildTurn, placeTurn, type PlaceStores, type TurnPlace } from "./turn-place.js";
import type { AdmittedTurn, TurnState } from "./turn-state.js";

type AdmissionDeps = Pick<TurnDeps, "registry" | "store" | "projects" | "models" | "budgets" | "spending" | "settings" | "config" | "repositories">;

/**
 * Admits a user's turn, reading only: the agent and its rules from the registry, and the chat's place (turn-place.ts:
 * the project and the owner's role in it, with the settings and the project's repository record alongside), then the
 * route and the budgets, made from what was read.
 * A refusal here (an unknown agent, another user's chat, a viewer, no model configured) is the turn's one `error`
 * event; its session is not touched.
 */
export async function admitTurn(deps: AdmissionDeps, turn: TurnState): Promise<AdmittedTurn> {
  // read at once; a refusal names the agent first, as when they were read one after the other
  const [{ agent, rules }, place] = await inOrder(deps.registry.agentWithRules(turn.request.agent_id, turn.log), placeTurn(placeStores(deps), turn.request));
  return Object.assign(admitted(deps, turn, agent, place, (model) => model), { rules });
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
  return admitted(deps, turn, agent, await placeChildTurn(placeStores(deps), request), (model) => whileFamilyRuns(model, stillRuns));
}

const placeStores = (deps: AdmissionDeps): PlaceStores => ({ sessions: deps.store, projects: deps.projects, settings: deps.settings, repositories: deps.repositories });

/** Asks the turn's budgets as it is accepted (turn-session.ts): its first model call goes on this answer. */
export const admitBudget = async (turn: AdmittedTurn): Promise<void> => turn.budget?.admit(await turn.spending.unstoredCost());

function admitted(deps: AdmissionDeps, turn: TurnState, agent: AgentDefinition, place: TurnPlace, guard: (model: ModelCaller) => ModelCaller): AdmittedTurn {
  const { request } = turn;
  // the agent's route: by its id, its module and the chat's project (docs/models.md "Routes")
  const route = deps.models.pick({ agent: agent.id, module: agent.bundleName, project: place.projectId });
  // the route that writes its hand-off summaries, when one is configured (docs/models.md "Compaction")
  const summaries = deps.models.compaction();
  if (!route) throw new AppError("MODEL_NOT_CONFIGURED", modelNotConfiguredMessage);
  const { documents } = place;
  const budget = deps.budgets?.forTurn(place.projectId, request.owner, place.project);
  const settings = documents && turnSettings(documents, { projectName: place.projectName, callerName: request.caller_name });
  const approvals = projectApprovals(documents?.project, deps.config.APPROVALS_DEFAULTS);
  // whether run_command's sandbox may use the network (docs/commands.md): off unless the project says so
  const network = documents?.project.repository?.network === true;
  // from now on the turn spends in its project, for its agent
  const spending = new DeliverySpending(deps.spending, { runKey: turn.delivery, user: request.owner, projectId: place.projectId, agentId: agent.id }, turn.log);
  const meter = new UsageMeter(
    withinBudget(guard(route.caller), budgetCheck(budget, spending)),
    route.price,
    (usage) => spending.call(usage),
  );
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
  return Object.assign(turn, { agent, place, route, summaries, budget, spending, meter, context, approvals, commands: place.repository });
}

/** Both answers once both have come; when both failed, the first one's error. */
async function inOrder<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === "rejected") throw a.reason;
  if (b.status === "rejected") throw b.reason;
  return [a.value, b.value];
}
