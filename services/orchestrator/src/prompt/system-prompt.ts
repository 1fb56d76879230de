import { lateAnswers, withoutLateAnswers } from "@agent-orchestrator/shared/bmad";
import { menuItemSkill, type AgentDefinition, type MenuItem, type ToolName } from "@agent-orchestrator/shared/wire";
import type { AgentStart } from "../agent/agent-start.js";
import { substituteVariables, type ActionsStart } from "../agent/critical-actions.js";
import type { AgentRules } from "../agent/agent-rules.js";
import { bulletList, describeToolRules, fillTemplate, variableList } from "./prompt-parts.js";
import { buildSkillAgentPrompt } from "./skill-agent-prompt.js";
import { chatSettingsSection } from "./chat-settings.js";
import { systemPromptTemplate, v4DependencyRules, workflowHandlerNote, workflowRules } from "./system-prompt-template.js";

export interface PromptOptions {
  /** the tools offered to the model (`toolsForAgent`); the prompt mentions only these */
  tools: readonly ToolName[];
  rules?: AgentRules;
  /** the names of the chat's own answers (shared `lateAnswerNames`): `{name}` in the prompt, their values at its end */
  lateAnswers?: ReadonlySet<string>;
}

/**
 * Builds an agent's system prompt from its definition, what the system did at its start and the tools it is
 * offered, and the chat's settings at its very end: no date, chat or turn, so it is the same bytes in every chat of
 * the agent for one member in one project, and all before the settings the same for everyone, which a provider's
 * prompt cache serves (docs/models.md "Prompt caching", docs/settings.md).
 */
export function buildSystemPrompt(agent: AgentDefinition, start: AgentStart, options: PromptOptions): string {
  const late = options.lateAnswers ?? new Set<string>();
  const early = withoutLateAnswers(start.variables, late);
  const body =
    start.kind === "skill"
      ? buildSkillAgentPrompt(agent, { ...start, variables: early }, options.tools)
      : buildActionsAgentPrompt(agent, { ...start, variables: early }, options.rules ?? { handlers: {}, rules: [] }, options.tools);
  return late.size > 0 ? `${body}\n\n${chatSettingsSection(lateAnswers(start.variables, late))}` : body;
}

function buildActionsAgentPrompt(agent: AgentDefinition, start: ActionsStart, agentRules: AgentRules, tools: readonly ToolName[]): string {
  const workflows = tools.includes("preload_workflow");
  return fillTemplate(systemPromptTemplate, {
    name: agent.name || agent.id,
    title: agent.title || "an assistant",
    role: agent.persona.role,
    identity: agent.persona.identity || "(not given)",
    communication_style: agent.persona.communication_style || "(not given)",
    principles: agent.persona.principles || "(not given)",
    start_instructions: bulletList(start.instructions, "(none)"),
    variables: variableList(start.variables),
    loaded_files: start.files.length
      ? start.files.map((file) => `--- ${file.path} ---\n${file.content.trimEnd()}\n--- end of ${file.path} ---`).join("\n\n")
      : "(none)",
    tool_rules: describeToolRules(tools),
    release_rules: agent.format === "v4" ? fillTemplate(v4DependencyRules, { tree: agent.bundlePath }) : "",
    menu: agent.menu.length ? agent.menu.map((item, index) => `${index + 1}. ${describeMenuItem(item)}`).join("\n") : "(no menu)",
    handler_note: workflows ? workflowHandlerNote : "",
    agent_rules: substituteVariables(describeAgentRules(agentRules), start.variables),
    workflow_rules: workflows ? workflowRules : "",
  });
}

function describeAgentRules({ handlers, rules }: AgentRules): string {
  const parts = [
    ...Object.entries(handlers).map(([type, instructions]) => `When a menu item has ${type}="…":\n${instructions.trim()}`),
    ...(rules.length ? [`Rules:\n${bulletList(rules, "")}`] : []),
  ];
  return parts.length ? parts.join("\n\n") : "(none)";
}

function describeMenuItem(item: MenuItem): string {
  const skill = menuItemSkill(item);
  const targets = (
    [
      ["workflow", item.workflow],
      ["validate-workflow", item.validateWorkflow],
      // a 6.2 `exec="skill:x"` is shown as the skill it names, which load_skill runs
      ["exec", skill !== undefined && item.exec?.startsWith("skill:") ? undefined : item.exec],
      ["tmpl", item.tmpl],
      ["data", item.data],
      ["action", item.action],
      ["skill", skill],
      ["prompt", item.prompt],
    ] as const
  )
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${value}`);
  return `${item.trigger} — ${item.description}${targets.length ? ` (${targets.join("; ")})` : ""}`;
}
