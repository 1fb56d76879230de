import type { AgentDefinition, ToolContext } from "@agent-orchestrator/shared/wire";
import type { ToolCaller } from "../loop/tool-caller.js";
import { startAgent, type AgentStart } from "./agent-start.js";
import type { StartCache } from "./start-cache.js";
import { withStartSettings } from "./start-settings.js";

/**
 * The agent's start (agent-start.ts) for a turn or a greeting, its calls marked as the system's (`agent_start`) and
 * named `<callPrefix>:<path>`; kept while the files it read are unchanged (start-cache.ts), the chat's settings merged
 * over it (start-settings.ts).
 */
export function keptAgentStart(
  deps: { starts: StartCache; tools: ToolCaller },
  agent: AgentDefinition,
  context: ToolContext,
  callPrefix: string,
  signal: AbortSignal,
): Promise<AgentStart> {
  const startContext: ToolContext = { ...context, agent_start: true };
  const started = deps.starts.get(agent, () =>
    startAgent(agent, {
      readFile: (path) => deps.tools.call("read_file", `${callPrefix}:${path}`, startContext, { file_path: path }, signal),
      loadSkill: (name) => deps.tools.call("load_skill", `${callPrefix}:skill`, startContext, { name }, signal),
    }),
  );
  return started.then((start) => withStartSettings(start, context.settings));
}
