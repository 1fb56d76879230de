import type { ParsedAgent } from "@agent-orchestrator/shared/bmad";
import { defaultIcon, type AgentRecord } from "./discovery-context.js";

/** Where an installed module's agent sits and what it is called. */
export interface ModuleAgentPlace {
  /** `<module>/<name>` */
  id: string;
  module: string;
  release?: string | undefined;
  /** becomes `{bundle-root}`: the module folder, the 4.x tree, or a skill agent's skill folder */
  bundlePath: string;
  filePath: string;
  skill?: { name: string; path: string } | undefined;
}

/**
 * An installed module's agent as served: name, title, icon and description from the agent's own file (or
 * the id, the title and "🤖" when it names none), everything else as parsed.
 */
export function moduleAgent(parsed: ParsedAgent, place: ModuleAgentPlace): AgentRecord {
  return {
    definition: {
      id: place.id,
      name: parsed.name || parsed.id || place.id,
      title: parsed.title,
      icon: parsed.icon || defaultIcon,
      description: parsed.description || parsed.title,
      bundleName: place.module,
      source: "module",
      format: parsed.format,
      ...(place.release ? { release: place.release } : {}),
      persona: parsed.persona,
      criticalActions: parsed.criticalActions,
      menu: parsed.menu,
      bundlePath: place.bundlePath,
      filePath: place.filePath,
      ...(place.skill ? { skill: place.skill } : {}),
    },
    parsed,
  };
}
