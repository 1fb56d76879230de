import type { AgentDefinition } from "@agent-orchestrator/shared/wire";
import { runCriticalActions, type ActionsStart, type ReadFile } from "./critical-actions.js";
import { startSkillAgent, type LoadSkill, type SkillStart } from "./skill-start.js";

/** What the system did to start an agent, before the model sees anything. */
export type AgentStart = ActionsStart | SkillStart;

/** The two tool calls an agent start may make, bound to the turn's context and call ids by the caller. */
export interface StartTools {
  readFile: ReadFile;
  loadSkill: LoadSkill;
}

/**
 * Starts an agent by the system, for every BMAD release (docs/design.md "Activation by the system"): a skills-era agent is activated
 * by loading its skill; every other format runs its critical actions (4.x activation-instructions, 6.x
 * `<activation>` steps), loading the files they name.
 */
export function startAgent(agent: AgentDefinition, tools: StartTools): Promise<AgentStart> {
  if (agent.format === "skill") return startSkillAgent(agent, tools.loadSkill);
  return runCriticalActions(agent.criticalActions, tools.readFile);
}
