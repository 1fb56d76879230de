import type { MenuItem, NextStep } from "@agent-orchestrator/shared/wire";

/**
 * The first message of a chat the overview starts: the workflow asked for by the agent's own menu entry
 * for its skill (a 6.12 skill agent's menu codes are like `CB`; older agents' triggers like `*product-brief`),
 * or by the help catalogue's code when the menu names no such skill. Agents are told to run a menu entry
 * named by its code or trigger, so one message starts the workflow.
 */
export function workflowMessage(step: Pick<NextStep, "skill" | "code" | "name">, menu: readonly MenuItem[]): string {
  const trigger = menu.find((item) => item.skill === step.skill)?.trigger ?? step.code;
  return `Run ${trigger}: ${step.name}`;
}
