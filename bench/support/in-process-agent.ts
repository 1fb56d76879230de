import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { AgentDefinition } from "@agent-orchestrator/shared/wire";
import { buildSystemPrompt, loopLimits, ModelRouter, modelRoutesOf, orchestratorEnvSchema, runAgentLoop, runCriticalActions, toolsForAgent, type ToolCaller, type TurnOutput } from "@agent-orchestrator/orchestrator";
import { AgentRegistry, discoveryLimits, registryEnvSchema } from "@agent-orchestrator/registry";
import type { BenchSystem } from "./bench-system.js";
import { createDirectReadFile, DirectToolClient } from "./direct-tools.js";
import { settings } from "./service-settings.js";

/** The project and user of the baselines' tool calls: one user working in one project, as the benchmark's chats do. */
export const benchProjectId = "bench-project";
export const benchUser = "bench";

/** The "in-process loop" baseline: one turn of an agent, all in this process. */
export interface InProcessAgent {
  runTurn(message: string): Promise<TurnOutput>;
  /** the system prompt a turn starts with (critical actions run, config read), for the other baselines */
  systemPrompt(): Promise<string>;
}

/**
 * The orchestrator's work for one turn without the distribution: the agent parsed once (as the registry
 * keeps it), then per turn the critical actions (config read directly), the system prompt, and the very
 * `runAgentLoop` the orchestrator runs, with the tool function called directly and an openai client of the
 * same settings. `loopTools` replaces the direct tool calls of the loop (measure 1 passes the NATS client,
 * so that only the path of the model's tool call differs). What it leaves out is exactly what distribution adds: HTTP, NATS hops, the JetStream work
 * queue, the session and the project in JetStream KV, the event stream. Its direct read_file goes through the
 * system's own file store (`system.files`), as the tool-runner's does.
 */
export async function createInProcessAgent(system: Pick<BenchSystem, "env" | "files">, agentId: string, loopTools?: ToolCaller): Promise<InProcessAgent> {
  const { env } = system;
  const registry = new AgentRegistry(env["BMAD_ROOT"] ?? ".", discoveryLimits(settings(registryEnvSchema, env)));
  await registry.rescan();
  const agent: AgentDefinition | undefined = registry.getAgent(agentId)?.definition;
  if (!agent) throw new Error(`no agent ${agentId} under ${env["BMAD_ROOT"]}`);
  const config = settings(orchestratorEnvSchema, env);
  // the agent's model route, with the orchestrator's own client settings
  const routes = modelRoutesOf(config, env);
  if (!routes.ok) throw new Error(routes.error);
  const model = new ModelRouter(routes.routes, config).pick({ agent: agent.id, module: agent.bundleName })?.caller;
  if (!model) throw new Error("no model configured (OPENAI_BASE_URL, LLM_MODEL)");
  const readFile = await createDirectReadFile(env["BMAD_ROOT"] ?? ".", system.files);
  const tools = loopTools ?? new DirectToolClient(readFile);

  const context = () => ({ session_id: randomUUID(), bundle_path: agent.bundlePath, project_id: benchProjectId, user: benchUser, agent_id: agent.id });
  const toolNames = toolsForAgent(agent, { subagents: false });
  const systemPrompt = async (sessionContext = context()) =>
    buildSystemPrompt(agent, await runCriticalActions(agent.criticalActions, (path) => readFile({ file_path: path }, sessionContext)), { tools: toolNames });

  return {
    systemPrompt: () => systemPrompt(),
    async runTurn(message) {
      const sessionContext = context();
      return runAgentLoop({
        model,
        messages: [
          { role: "system", content: await systemPrompt(sessionContext) },
          { role: "user", content: message },
        ],
        tools,
        toolNames,
        context: sessionContext,
        runId: randomUUID(),
        emit: () => {},
        signal: turnSignal(config.MAX_ITERATIONS),
        limits: loopLimits(config),
      });
    },
  };
}

/**
 * A turn's abort signal. The openai client adds an abort listener to it per model call and removes none
 * until the turn ends, so a turn of more than 10 calls (measure 1 makes 11) would trip Node's
 * MaxListenersExceededWarning; the limit is raised to what a turn may make.
 */
function turnSignal(maxModelCalls: number): AbortSignal {
  const { signal } = new AbortController();
  setMaxListeners(maxModelCalls + 10, signal);
  return signal;
}
