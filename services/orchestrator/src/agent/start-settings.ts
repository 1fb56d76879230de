import { lateAnswerNames, withoutLateAnswers, withSettingsAnswers } from "@agent-orchestrator/shared/bmad";
import { type SettingsLayers } from "@agent-orchestrator/shared/wire";
import type { AgentStart } from "./agent-start.js";
import { substituteVariables } from "./critical-actions.js";
import { startVariables } from "./start-variables.js";

/**
 * An agent's start with the chat's settings merged over the install's answers (docs/settings.md). A start is kept for
 * every chat of the agent (start-cache.ts), so the settings are applied to each turn's copy, never to the kept one.
 * A skills-era start needs nothing here: the tool-runner merged the settings when it loaded the skill.
 */
export function withStartSettings(start: AgentStart, settings: SettingsLayers | undefined): AgentStart {
  if (settings === undefined || start.kind !== "actions" || start.unresolved === undefined) return start;
  const variables = startVariables(withSettingsAnswers(start.unresolved.variables, settings));
  // the chat's own answers stay `{name}` in the instructions: the system prompt lists them at its end (chat-settings.ts)
  const early = withoutLateAnswers(variables, lateAnswerNames(settings));
  return { ...start, variables, instructions: start.unresolved.instructions.map((text) => substituteVariables(text, early)) };
}
