import type { ActivationData, MenuItem } from "@agent-orchestrator/shared/wire";

/** What a menu item runs, and which of the agent's menu handlers says how. */
export interface MenuTarget {
  kind: "workflow" | "validate-workflow" | "exec" | "skill";
  target: string;
}

/** The runnable target of a menu item; items without one (help, exit, inline actions) are not workflows. */
export function menuTarget(item: MenuItem): MenuTarget | undefined {
  if (item.todo) return undefined;
  if (item.workflow) return { kind: "workflow", target: item.workflow };
  if (item.validateWorkflow) return { kind: "validate-workflow", target: item.validateWorkflow };
  if (item.skill) return { kind: "skill", target: item.skill };
  if (item.exec) return { kind: "exec", target: item.exec };
  return undefined;
}

/**
 * The activation document of one workflow of a release before skills (a `workflow`, `validate-workflow` or
 * `exec` menu item; docs/design.md "Activation documents"), built from the activation of the agent that
 * offers it: the menu entry, the agent's handler for that kind of entry, the agent's persona and rules, and
 * the user's request. The files themselves are read by the outside model from the project, as its handler
 * says. A skill is not handled here: the registry resolves it whole (`registry.skills.get`).
 */
export function workflowActivation(agent: ActivationData, item: MenuItem, target: MenuTarget, userContext: string | undefined) {
  const handler = agent.activation.handlers[target.kind] ?? defaultHandler(target);
  const name = item.trigger.replace(/^\*/, "");
  const data = {
    type: "workflow" as const,
    name,
    module: agent.module,
    standalone: false,
    metadata: { title: item.description, trigger: item.trigger, kind: target.kind, target: target.target },
    instructions: { handler, rules: agent.activation.rules },
    agent: { id: agent.id, name: agent.persona.name, title: agent.persona.title, icon: agent.persona.icon, persona: agent.persona },
    ...(userContext ? { userContext } : {}),
  };
  const persona = agent.persona;
  const sections = [
    `${persona.icon || "📋"} **Workflow Activated: ${item.description || name}** (${item.trigger})`,
    [
      "## WORKFLOW OVERVIEW",
      `**Purpose:** ${item.description || name}`,
      `**Agent:** ${persona.name}${persona.title ? ` (${persona.title})` : ""}: stay in this character while you run it`,
      `**Runs:** ${target.target}`,
    ].join("\n"),
    `## HOW TO RUN IT\n\n${handler}\n\nThe ${target.kind} to pass to it: \`${target.target}\``,
    persona.role || persona.communicationStyle
      ? `## YOUR IDENTITY\n\n${[persona.role && `**Role:** ${persona.role}`, persona.communicationStyle && `**Communication Style:** ${persona.communicationStyle}`].filter(Boolean).join("\n\n")}`
      : "",
    agent.activation.rules.length > 0 ? `## CRITICAL RULES\n\n${agent.activation.rules.map((rule) => `✓ ${rule}`).join("\n")}` : "",
    userContext ? `## USER REQUEST\n\n${userContext.split("\n").map((line) => `> ${line}`).join("\n")}` : "",
    `▶️ **BEGIN WORKFLOW EXECUTION**\nLoad \`${target.target}\` now as the handler above says, and execute its first step.`,
  ];
  return { data, text: sections.filter((section) => section !== "").join("\n\n---\n\n") };
}

/** For an agent whose file has no handler of this kind (BMAD's own wording, condensed). */
function defaultHandler(target: MenuTarget): string {
  if (target.kind === "exec") return "Read the file in full and follow all the instructions within it.";
  return "1) Load the workflow engine ({project-root}/bmad/core/tasks/workflow.xml or workflow.md), 2) pass the workflow's yaml path as 'workflow-config', 3) execute the engine's instructions precisely, saving outputs after each step.";
}
