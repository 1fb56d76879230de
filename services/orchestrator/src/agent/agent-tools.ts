import { menuItemSkill, type AgentDefinition, type ToolName } from "@agent-orchestrator/shared/wire";

export interface AgentToolOptions {
  /** offer `run_subagent`: only when this orchestrator can run subagents */
  subagents: boolean;
  /** offer `run_command`: only when the turn's project has a git repository (docs/commands.md) */
  commands?: boolean;
}

/** The file tools every agent gets (docs/file-tools.md): BMAD's instructions assume read, write, edit, glob and grep. */
export const fileTools = ["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files"] as const satisfies readonly ToolName[];

/**
 * The tools offered to an agent's model, so it is never shown a tool its BMAD release has no use for:
 * - the file tools (`read_file`, `save_output`, `edit_file`, `list_files`, `find_files`, `search_files`): every agent;
 * - `preload_workflow`: agents with a `workflow.yaml` menu target (`workflow` or `validate-workflow`), the
 *   only thing it runs;
 * - `load_skill`, `run_script` and `run_subagent`: agents that use skills, i.e. a skills-era agent (format
 *   `skill`, BMAD 6.3+) or an agent whose menu invokes a skill (6.2 `exec="skill:x"`): skills are where BMAD's
 *   scripts live and what asks for subagents (docs/design.md "Tools"); `run_subagent` only when
 *   `options.subagents` says this orchestrator runs them.
 * - `run_command`: every agent whose turn's project has a git repository (`options.commands`), right after the
 *   file tools, so a project's tool list (part of the cached prompt prefix) is the same on every turn.
 * A call to any other tool gets an UNKNOWN_TOOL result naming the offered ones.
 */
export function toolsForAgent(agent: AgentDefinition, options: AgentToolOptions): ToolName[] {
  const names: ToolName[] = [...fileTools];
  if (options.commands === true) names.push("run_command");
  if (agent.menu.some((item) => item.workflow !== undefined || item.validateWorkflow !== undefined)) names.push("preload_workflow");
  const usesSkills = agent.format === "skill" || agent.menu.some((item) => menuItemSkill(item) !== undefined);
  if (usesSkills) names.push("load_skill", "run_script");
  if (usesSkills && options.subagents) names.push("run_subagent");
  return names;
}
