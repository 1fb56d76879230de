import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { lateAnswerNames } from "@agent-orchestrator/shared/bmad";
import { type ConversationMessage, type ToolName } from "@agent-orchestrator/shared/wire";
import { toolsForAgent } from "../agent/agent-tools.js";
import { buildSystemPrompt } from "../prompt/system-prompt.js";
import { buildSubagentPrompt } from "../subagents/subagent-prompt.js";
import { subagentsForTurn, type SubagentRunner } from "../subagents/subagent-runner.js";
import { modelConversation, storedUserMessage } from "./attached-user-message.js";
import { preloadedSkill } from "./preloaded-skill.js";
import type { TurnDeps } from "./turn-deps.js";
import type { AdmittedTurn, PreparedTurn } from "./turn-state.js";

type PreparationDeps = Pick<TurnDeps, "connection" | "config" | "logger" | "subjectPrefix" | "lendSlot" | "tools" | "starts">;

/**
 * The system prompt of a user's turn: the agent's start (agent/agent-start.ts, kept in start-cache.ts; a
 * markdown agent's critical actions, a skills-era agent's own skill), its activation rules (read with the agent by the
 * admission) and its tools.
 */
export async function systemPromptOf(deps: Pick<TurnDeps, "starts" | "tools">, turn: AdmittedTurn): Promise<string> {
  const { agent, context, rules } = turn;
  const start = await deps.starts.start(deps.tools, agent, context, `${turn.delivery}:start`, turn.controller.signal);
  return buildSystemPrompt(agent, start, { ...(rules ? { rules } : {}), tools: toolsOf(turn), lateAnswers: lateAnswerNames(context.settings) });
}

/**
 * Prepares a user's turn while its session's hold is written (turn-session.ts, hold-gate.ts): from the system prompt,
 * which only reads the agent's own files and records nothing, and the chat the admission read, which is the one
 * the hold keeps (none for a new chat).
 */
export async function prepareTurn(deps: PreparationDeps, turn: AdmittedTurn): Promise<PreparedTurn> {
  return prepareConversation(deps, turn, turn.place.stored?.record.messages ?? [], await systemPromptOf(deps, turn));
}

/**
 * A user's turn prepared from its chat so far: the loop starts from the system prompt, the chat and the user's
 * message, each user message's attachments composed as the model reads them (attached-user-message.ts).
 */
export function prepareConversation(deps: PreparationDeps, turn: AdmittedTurn, chat: readonly ConversationMessage[], systemPrompt: string): PreparedTurn {
  // a resumed turn goes on from the chat as its pause saved it, the user's message already in it (turn-resume.ts)
  const userMessage = turn.resumed ? undefined : storedUserMessage(turn.request);
  const conversation: ChatCompletionMessageParam[] = [{ role: "system", content: systemPrompt }, ...modelConversation([...chat, ...(userMessage ? [userMessage] : [])])];
  return Object.assign(turn, { toolNames: toolsOf(turn), conversation, subagents: subagentsOf(deps, turn) }, userMessage ? { userMessage } : {});
}

/**
 * Prepares a subagent's turn: its prompt (the persona of the agent it runs as: subagent-prompt.ts), the task as the
 * user message, and the skill its parent named, already loaded (preloaded-skill.ts). A child has no conversation
 * of its own: only its answer is its chat's, as its parent's tool result.
 */
export async function prepareChildTurn(deps: PreparationDeps, turn: AdmittedTurn): Promise<PreparedTurn> {
  const { request } = turn;
  const conversation: ChatCompletionMessageParam[] = [
    { role: "system", content: buildSubagentPrompt(turn.agent, request.skill ? { skill: request.skill } : {}) },
    { role: "user", content: request.message },
    ...(request.skill ? await preloadedSkill(deps, turn, request.skill) : []),
  ];
  return Object.assign(turn, { toolNames: toolsOf(turn), conversation, subagents: subagentsOf(deps, turn) });
}

const toolsOf = (turn: AdmittedTurn): readonly ToolName[] => toolsForAgent(turn.agent, { subagents: true, commands: turn.commands === true });

/** The turn's run_subagent calls: its children run in its chat and project, and never outlive it. */
function subagentsOf(deps: PreparationDeps, turn: AdmittedTurn): SubagentRunner | undefined {
  const { request, parent } = turn;
  return subagentsForTurn(deps, {
    sessionId: request.session_id,
    runId: request.run_id,
    owner: request.owner,
    callerName: request.caller_name,
    projectId: turn.place.projectId,
    branch: turn.place.branch,
    agentId: turn.agent.id,
    depth: parent?.depth ?? 0,
    deadline: turn.endsAt,
    ...(parent ? { rootRunId: parent.root_run_id ?? parent.run_id } : {}),
    emit: (event) => turn.events.emit(event),
  });
}
