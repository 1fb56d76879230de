import { AppError, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { type SessionRecord } from "@agent-orchestrator/shared/wire";
import { admitBudget } from "./turn-admission.js";
import type { TurnLifetime } from "../sessions/abandoned-turn.js";
import { decideTurnAcceptance, type TurnAcceptance } from "./turn-acceptance.js";
import type { TurnDeps } from "./turn-deps.js";
import type { AdmittedTurn, HeldSession, HeldTurn } from "./turn-state.js";

/** A delivery that ends without a word: the delivery that runs or ran its turn answers its client. */
interface Dropped {
  dropped: Exclude<TurnAcceptance, "accept" | "busy">;
}

/**
 * Holds the chat's session for a user's turn: marks it running (turn-acceptance.ts decides whether this delivery
 * may), or refuses the turn. A new chat is created running in one KV create; a turn of an existing chat is written
 * with compare-and-set on the head it was decided from, so of two turns that read the same idle head one is marked
 * and the other is SESSION_BUSY. Undefined when this delivery is dropped: it ends without a final event.
 */
export async function holdSession(deps: Pick<TurnDeps, "store" | "config">, turn: AdmittedTurn): Promise<HeldTurn | undefined> {
  const held = await markRunning(deps, turn);
  if ("dropped" in held) {
    turn.log.info({ decision: held.dropped }, "the turn is already running or has ended; this delivery is dropped");
    return undefined;
  }
  const holding = Object.assign(turn, { session: held });
  announceTurn(holding);
  return holding;
}

/**
 * The turn is on: its client hears where it runs and on which model (the `session` event), once its session is held
 * (a subagent's, which holds none, once it is admitted: child-turn.ts).
 */
export function announceTurn(turn: AdmittedTurn): void {
  turn.events.emit({ type: "session", agent_id: turn.agent.id, project_id: turn.place.projectId, attempt: turn.attempt, model: turn.route.model });
}

/**
 * Whether the turn's model may be called while its hold is written (hold-gate.ts): only when the hold will mark the
 * session as the admission read it, without a budget to ask first. A new chat is created unless this delivery is a
 * redelivery (its chat may exist, read anew); a continued chat is marked from the head the admission read, so the
 * checks below decide as the hold will, and a turn the hold refuses (a chat that runs or waits, another agent's chat)
 * makes no call. Only a lost compare-and-set (two turns at once) or a failed write then refuses a turn whose request
 * went out.
 */
export function callsAhead(lifetime: TurnLifetime, turn: AdmittedTurn): boolean {
  const { request, attempt, place } = turn;
  if (turn.budget !== undefined) return false;
  if (request.new_session) return attempt === 1;
  const head = place.stored?.record;
  // a chat from before projects is moved into its project by the hold first
  return head !== undefined && head.project_id !== undefined && decideOnHead(lifetime, turn, head) === "accept";
}

/**
 * What the hold does with a chat's head as it was read: the decision of the rule of one running turn
 * (turn-acceptance.ts), or `another-agent` for a chat of another agent than the turn's, which it refuses. Asked by
 * the hold, and by `callsAhead` before it, so the two decide alike.
 */
function decideOnHead(lifetime: TurnLifetime, turn: AdmittedTurn, head: SessionRecord): TurnAcceptance | "another-agent" {
  if (head.agent_id !== turn.agent.id) return "another-agent";
  return decideTurnAcceptance({ runId: turn.request.run_id, attempt: turn.attempt, session: head, lifetime, now: Date.now() });
}

async function markRunning(deps: Pick<TurnDeps, "store" | "config">, turn: AdmittedTurn): Promise<HeldSession | Dropped> {
  const { request, agent, place } = turn;
  const admit = () => admitBudget(turn);
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
          deps.store.createRunning({ id: request.session_id, agentId: agent.id, owner: request.owner, projectId: place.projectId, branch: place.branch, runId: request.run_id }),
        );
    if (created) return created;
    if (refused && !(await retryWhileLeaderless(() => deps.store.get(request.session_id, request.owner)))) throw refused;
  }
  const stored = place.stored ?? (await retryWhileLeaderless(() => deps.store.get(request.session_id, request.owner)));
  if (!stored) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  const { record } = stored;
  const decision = decideOnHead(deps.config, turn, record);
  if (decision === "another-agent") throw new AppError("BAD_REQUEST", `This session belongs to agent ${record.agent_id}`);
  if (decision === "busy" && record.status === "awaiting_approval") {
    throw new AppError("SESSION_BUSY", "This chat waits for a decision on a tool call: approve or reject it (GET /api/sessions/:id/approvals), or cancel the chat");
  }
  if (decision === "busy") throw new AppError("SESSION_BUSY", "A turn is already running in this session");
  if (decision !== "accept") return { dropped: decision };
  // refused unstarted past a budget (BUDGET_EXCEEDED), the session left as it was; a takeover of a turn already marked
  // running was admitted when it started, and its next model call asks the budgets again
  if (!(record.status === "running" && record.run_id === request.run_id)) await admit();
  // a chat an orchestrator from before projects wrote is placed in the project found for it
  if (record.project_id === undefined && !(await retryWhileLeaderless(() => deps.store.point(record.id, record.owner, place.projectId)))) {
    throw new AppError("SESSION_NOT_FOUND", "Session not found");
  }
  const running: SessionRecord = {
    ...record,
    project_id: place.projectId,
    status: "running",
    run_id: request.run_id,
    last_run_id: request.run_id,
    run_started_at: record.run_id === request.run_id && record.run_started_at ? record.run_started_at : new Date().toISOString(),
  };
  const version = await retryWhileLeaderless(() => deps.store.update(running, stored.version));
  return { record: running, version };
}
