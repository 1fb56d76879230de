import type { AgentDefinition, MenuItem } from "@agent-orchestrator/shared";
import { substituteVariables, type AgentStart } from "./critical-actions.js";
import { systemPromptTemplate } from "./system-prompt-template.js";

/** The handlers and rules of an agent file, from the registry's activation document. */
export interface AgentRules {
  handlers: Readonly<Record<string, string>>;
  rules: readonly string[];
}

/** Builds an agent's system prompt from its definition, its file's rules and what the system loaded at start. */
export function buildSystemPrompt(
  agent: AgentDefinition,
  start: AgentStart,
  agentRules: AgentRules = { handlers: {}, rules: [] },
  today: Date = new Date(),
): string {
  const slots: Record<string, string> = {
    name: agent.name || agent.id,
    title: agent.title || "an assistant",
    role: agent.persona.role,
    identity: agent.persona.identity || "(not given)",
    communication_style: agent.persona.communication_style || "(not given)",
    principles: agent.persona.principles || "(not given)",
    start_instructions: bulletList(start.instructions, "(none)"),
    variables: bulletList(
      Object.entries(start.variables).map(([key, value]) => `${key}: ${value}`),
      "(none)",
    ),
    loaded_files: start.files.length
      ? start.files.map((file) => `--- ${file.path} ---\n${file.content.trimEnd()}\n--- end of ${file.path} ---`).join("\n\n")
      : "(none)",
    menu: agent.menu.length ? agent.menu.map((item, index) => `${index + 1}. ${describeMenuItem(item)}`).join("\n") : "(no menu)",
    agent_rules: substituteVariables(describeAgentRules(agentRules), start.variables),
    date: today.toISOString().slice(0, 10),
  };
  return systemPromptTemplate.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => slots[name] ?? whole);
}

function describeAgentRules({ handlers, rules }: AgentRules): string {
  const parts = [
    ...Object.entries(handlers).map(([type, instructions]) => `When a menu item has ${type}="…":\n${instructions.trim()}`),
    ...(rules.length ? [`Rules:\n${bulletList(rules, "")}`] : []),
  ];
  return parts.length ? parts.join("\n\n") : "(none)";
}

function describeMenuItem(item: MenuItem): string {
  const targets = (
    [
      ["workflow", item.workflow],
      ["validate-workflow", item.validateWorkflow],
      ["exec", item.exec],
      ["tmpl", item.tmpl],
      ["data", item.data],
      ["action", item.action],
    ] as const
  )
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${value}`);
  return `${item.trigger} — ${item.description}${targets.length ? ` (${targets.join("; ")})` : ""}`;
}

const bulletList = (lines: readonly string[], empty: string): string => (lines.length ? lines.map((line) => `- ${line}`).join("\n") : empty);
