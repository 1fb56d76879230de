import { randomUUID } from "node:crypto";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { Service } from "nats";
import { lateAnswerNames } from "@agent-orchestrator/shared/bmad";
import { addJsonEndpoint, AppError, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import {
  addUsage,
  SessionCompactRequest,
  subjects,
  toolDefinitionsForModel,
  type CompactionFigures,
  type SessionRecord,
  type ToolContext,
} from "@agent-orchestrator/shared/wire";
import { toolsForAgent } from "../agent/agent-tools.js";
import { compactedView } from "../compaction/compacted-view.js";
import { Compactor } from "../compaction/compactor.js";
import { fixedPromptTokens, PromptCounter } from "../compaction/prompt-counter.js";
import { compactionTargetShare } from "../compaction/window-guard.js";
import { modelNotConfiguredMessage } from "../config.js";
import { UsageMeter } from "../model/usage-meter.js";
import { projectOfWriter } from "../projects/project-access.js";
import { buildSystemPrompt } from "../prompt/system-prompt.js";
import { visibleChat } from "../sessions/chat-access.js";
import { turnSettings } from "../settings/turn-settings.js";
import { DeliverySpending } from "../spending/delivery-spending.js";
import { budgetCheck, withinBudget } from "../spending/within-budget.js";
import { modelConversation } from "../turn/attached-user-message.js";
import type { TurnDeps } from "../turn/turn-deps.js";

/** What a compaction reads and calls: the chat's session and project, its agent's start, its route, its spending. */
type CompactionDeps = Pick<
  TurnDeps,
  "config" | "logger" | "store" | "projects" | "registry" | "starts" | "tools" | "models" | "spending" | "budgets" | "settings" | "subjectPrefix"
>;

/**
 * `agent.session.compact` (`POST /api/sessions/:id/compact`, docs/models.md "Compaction"): compacts a chat now, with
 * a hand-off summary, for the member who runs its turns. The chat must be idle (SESSION_BUSY while a turn runs),
 * and stays so: its marker is saved by compare-and-set on the head that was read, so a turn that starts meanwhile
 * wins and this answers SESSION_BUSY (docs/security.md case 272).
 */
export function addCompactionEndpoint(service: Service, deps: CompactionDeps): void {
  addJsonEndpoint(
    service,
    "session-compact",
    deps.subjectPrefix + subjects.sessionCompact,
    SessionCompactRequest,
    async ({ session_id, user }) => ({ success: true, compaction: await compactChat(deps, session_id, user) }),
    deps.logger,
  );
}

async function compactChat(deps: CompactionDeps, sessionId: string, user: string): Promise<CompactionFigures> {
  const { config, store } = deps;
  // as for a turn: a non-member finds no chat, a viewer or another member may not (docs/security.md case 269)
  const chat = await visibleChat({ sessions: store, projects: deps.projects }, sessionId, user);
  if (chat.owner !== user) throw new AppError("PROJECT_FORBIDDEN", "Only the chat's owner can compact it");
  await projectOfWriter(deps.projects, chat.project.id, user);
  const stored = await retryWhileLeaderless(() => store.get(sessionId, user));
  if (!stored) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  const { record } = stored;
  if (record.status === "running") throw new AppError("SESSION_BUSY", "A turn is running in this chat; compact it once the turn has ended");
  if (!record.messages.some((message) => message.role === "user")) throw new AppError("BAD_REQUEST", "This chat has nothing to compact yet");

  const agent = await deps.registry.agent(record.agent_id);
  const routed = deps.models.pick({ agent: agent.id, module: agent.bundleName, project: chat.project.id });
  if (!routed) throw new AppError("MODEL_NOT_CONFIGURED", modelNotConfiguredMessage);
  const log = deps.logger.child({ sessionId, compaction: "manual" });
  const context: ToolContext = {
    session_id: sessionId,
    bundle_path: agent.bundlePath,
    project_id: chat.project.id,
    user,
    agent_id: agent.id,
    ...(deps.settings
      ? { settings: turnSettings(await deps.settings.documents(chat.project.id, user), { projectName: chat.project.personal ? undefined : chat.project.name }) }
      : {}),
  };
  const signal = AbortSignal.timeout(config.TURN_TIMEOUT_MS);
  const callPrefix = `compact-${randomUUID()}`;
  // the prompt the chat's next turn would start from: the agent's activation, then the conversation so far
  const toolNames = toolsForAgent(agent, { subagents: true });
  const [start, rules] = await Promise.all([deps.starts.start(deps.tools, agent, context, `${callPrefix}:start`, signal), deps.registry.rules(agent.id).catch(() => ({ handlers: {}, rules: [] }))]);
  const conversation: ChatCompletionMessageParam[] = [
    { role: "system", content: buildSystemPrompt(agent, start, { rules, tools: toolNames, lateAnswers: lateAnswerNames(context.settings) }) },
    ...modelConversation(record.messages),
  ];

  // the summary is one of the chat's model calls: metered at its route's price, within its budgets, in its totals
  const spending = new DeliverySpending(deps.spending, { runKey: callPrefix, user, projectId: chat.project.id, agentId: agent.id }, log);
  const budget = deps.budgets?.forTurn(chat.project.id, user, chat.project);
  const admit = budgetCheck(budget, spending);
  const meter = new UsageMeter(withinBudget(routed.caller, admit), routed.price, (usage) => spending.call(usage));
  const summaries = deps.models.compaction();
  const compactor = new Compactor({
    window: routed.window,
    targetShare: compactionTargetShare(config.COMPACTION_THRESHOLD_PERCENT),
    summarizer: summaries ? meter.alongside(withinBudget(summaries.caller, admit), summaries.price) : meter,
    summarizerWindow: (summaries ?? routed).window,
    files: { tools: deps.tools, context, callPrefix },
    logger: log,
  });
  const counter = new PromptCounter();
  const fixed = fixedPromptTokens(toolDefinitionsForModel(toolNames));
  const count = (messages: ChatCompletionMessageParam[]) => counter.count(messages, fixed);
  const [system, ...rest] = conversation;
  const before = count([system as ChatCompletionMessageParam, ...compactedView(rest)]);
  try {
    const made = await compactor.compact(conversation, { before, reason: "manual", summaryOnly: true, count, signal });
    const compacted: SessionRecord = {
      ...record,
      messages: [...record.messages, made.marker] as SessionRecord["messages"],
      usage: addUsage(record.usage, meter.usage),
    };
    await retryWhileLeaderless(() => store.update(compacted, stored.version));
    const { before_tokens, after_tokens, stage } = made.marker.compaction;
    log.info({ before_tokens, after_tokens, stage }, "chat compacted");
    return { before_tokens, after_tokens, stage };
  } finally {
    await spending.endSubagent();
  }
}
