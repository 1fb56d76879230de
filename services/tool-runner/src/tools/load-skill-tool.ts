import { lateAnswerNames } from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type LoadedSkill } from "@agent-orchestrator/shared/wire";
import { loadSkill } from "../skills/load-skill.js";
import { jsonBytes, truncateToJsonBytes } from "../reply-budget.js";
import type { ToolHandler } from "./tool-handler.js";

/** Put where instructions or a fact were cut to fit the reply. */
export const truncationMarker = "\n\n[… cut here to fit the reply; read the file with read_file for the rest]";

/**
 * `load_skill` → the shared `LoadedSkill`: the skill's resolved instructions, customization, variables,
 * facts and files (all paths virtual), the chat's settings merged in.
 */
export const loadSkillTool: ToolHandler<"load_skill"> = async (args, context, deps) => {
  // an agent's start becomes its system prompt: the chat's own answers stay `{name}` there, listed at its end (docs/settings.md)
  const lateAnswers = context.agent_start === true && context.settings ? lateAnswerNames(context.settings) : undefined;
  const skill = await loadSkill(deps.sandbox, context, args.name, { today: new Date(), settings: context.settings, lateAnswers });
  fitSkillToBudget(skill, deps.replyBudget());
  return skill;
};

/**
 * Makes a loaded skill fit `budget` bytes of JSON (the connection's max_payload, docs/security.md case 64) by
 * cutting the largest of the instructions and facts first, each cut marked in the text and noted.
 */
export function fitSkillToBudget(skill: LoadedSkill, budget: number): void {
  const markerBytes = jsonBytes(truncationMarker) - 2;
  const texts = () => [
    { bytes: jsonBytes(skill.instructions) - 2, set: (text: string) => (skill.instructions = text), get: () => skill.instructions, source: `${skill.path}/SKILL.md` },
    ...skill.facts.map((fact) => ({ bytes: jsonBytes(fact.content) - 2, set: (text: string) => (fact.content = text), get: () => fact.content, source: fact.source })),
  ];
  const cut = new Set<string>();
  for (let excess = jsonBytes(skill) - budget; excess > 0; excess = jsonBytes(skill) - budget) {
    const largest = texts().sort((a, b) => b.bytes - a.bytes)[0];
    if (!largest || largest.bytes <= markerBytes) throw new AppError("PAYLOAD_TOO_LARGE", "Reply too large");
    const current = largest.get();
    const base = current.endsWith(truncationMarker) ? current.slice(0, -truncationMarker.length) : current;
    largest.set(`${truncateToJsonBytes(base, Math.max(0, jsonBytes(base) - 2 - excess - markerBytes))}${truncationMarker}`);
    if (!cut.has(largest.source)) {
      cut.add(largest.source);
      skill.notes.push(`${largest.source} was cut to fit the reply`);
    }
  }
}
