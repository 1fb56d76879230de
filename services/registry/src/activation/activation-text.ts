import type { ActivationData, MenuItem } from "@agent-orchestrator/shared/wire";

const separator = "\n---\n";

/**
 * Renders activation data as the LLM-ready text of docs/design.md "Activation documents": identity first, then the activation sequence,
 * menu handlers, rules, prompts, the numbered commands (with their targets, so the model can act on a
 * choice without another look-up), and the user's request. Empty sections are left out.
 */
export function renderActivationText(data: ActivationData): string {
  const { persona, activation } = data;
  const sections = [
    `${persona.icon} **Agent Activated: ${persona.name}**${persona.title ? ` (${persona.title})` : ""}`,
    identitySection(data),
    section("ACTIVATION SEQUENCE (Execute Now)", activation.steps.map((step, index) => `**Step ${index + 1}:** ${step}`).join("\n\n")),
    section(
      "MENU HANDLERS",
      Object.entries(activation.handlers)
        .map(([type, instructions]) => `**${handlerLabel(type)} Handler:**\n${instructions}`)
        .join("\n\n"),
    ),
    section("CRITICAL RULES", activation.rules.map((rule) => `✓ ${rule}`).join("\n")),
    section("PROMPTS", data.prompts.map((prompt) => `**#${prompt.id}:**\n${prompt.content}`).join("\n\n")),
    section("PERSISTENT FACTS", (data.customization?.persistentFacts ?? []).map((fact) => `- ${fact}`).join("\n")),
    section("AVAILABLE COMMANDS", data.menu.map((item, index) => `${index + 1}. ${commandLine(item)}`).join("\n")),
    userRequestSection(data.userContext),
    activation.steps.length > 0
      ? "▶️ **BEGIN ACTIVATION SEQUENCE NOW**\nFollow the activation steps in order, starting with Step 1, before any other output."
      : "▶️ **BEGIN NOW**\nGreet the user in character and show the numbered commands.",
  ];
  return sections.filter((part) => part !== "").join(`\n${separator}\n`);
}

function identitySection(data: ActivationData): string {
  const { persona } = data;
  const principles = persona.principles.includes("\n")
    ? persona.principles
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => `- ${line}`)
        .join("\n")
    : persona.principles;
  const parts = [
    persona.role && `**Role:** ${persona.role}`,
    persona.identity && `**Who You Are:**\n${persona.identity}`,
    persona.communicationStyle && `**Communication Style:**\n${persona.communicationStyle}`,
    principles && `**Core Principles:**\n${principles}`,
  ].filter((part) => part !== "");
  return section("YOUR IDENTITY", parts.join("\n\n"));
}

/** The user's request, quoted (spec of the activation documents: docs/design.md "Activation documents"); empty without one. */
export function userRequestSection(userContext: string | undefined): string {
  return section("USER REQUEST", userContext ? userContext.split("\n").map((line) => `> ${line}`).join("\n") : "");
}

/** `## TITLE` and its body; empty when the body is. */
export function section(title: string, body: string): string {
  return body === "" ? "" : `## ${title}\n\n${body}`;
}

/** `validate-workflow` → `Validate Workflow` */
function handlerLabel(type: string): string {
  return type
    .split(/[-_\s]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

const targetLabels: ReadonlyArray<readonly [keyof MenuItem, string]> = [
  ["workflow", "workflow"],
  ["validateWorkflow", "validate-workflow"],
  ["exec", "exec"],
  ["tmpl", "tmpl"],
  ["data", "data"],
  ["action", "action"],
  ["skill", "skill"],
  ["prompt", "prompt"],
];

function commandLine(item: MenuItem): string {
  const targets = targetLabels
    .filter(([field]) => typeof item[field] === "string")
    .map(([field, label]) => `${label}="${String(item[field])}"`);
  const todo = item.todo ? " (not implemented yet)" : "";
  return `${item.trigger} - ${item.description}${todo}${targets.length > 0 ? ` [${targets.join(" ")}]` : ""}`;
}
