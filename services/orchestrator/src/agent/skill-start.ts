import { AppError } from "@agent-orchestrator/shared/runtime";
import { LoadedSkill, type AgentDefinition, type ToolResult } from "@agent-orchestrator/shared/wire";
import { withStartDefaults } from "./start-variables.js";

/** What the system did for a skills-era agent (BMAD 6.3+): its skill loaded, customization and config resolved. */
export interface SkillStart {
  kind: "skill";
  skill: LoadedSkill;
  /** the skill's config variables (output variables already resolved inside the project by the tool-runner), defaults filled in */
  variables: Record<string, string>;
}

export type LoadSkill = (name: string) => Promise<ToolResult>;

/**
 * Activates a skills-era agent the way docs/design.md "Activation by the system" says: one `load_skill` call, in which the tool-runner
 * merges the customization layers, loads the config and the persistent facts. The model gets the result and is
 * never asked to run BMAD's resolver scripts. A skill that cannot be loaded stops the start, naming the skill.
 */
export async function startSkillAgent(agent: AgentDefinition, loadSkill: LoadSkill): Promise<SkillStart> {
  const name = agent.skill?.name;
  if (name === undefined) throw new AppError("AGENT_INIT_FAILED", `The agent could not start: ${agent.id} is a skill agent that names no skill.`);
  const result = await loadSkill(name);
  if (!result.success) {
    throw new AppError("AGENT_INIT_FAILED", `The agent could not start: its skill ${name} could not be loaded (${result.error.message}).`);
  }
  const parsed = LoadedSkill.safeParse(result);
  if (!parsed.success) {
    throw new AppError("AGENT_INIT_FAILED", `The agent could not start: its skill ${name} was loaded in a shape this orchestrator does not know.`, {
      cause: parsed.error,
    });
  }
  return { kind: "skill", skill: parsed.data, variables: withStartDefaults(parsed.data.variables) };
}
