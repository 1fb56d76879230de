import { Agent, OpenAIChatCompletionsModel, Runner, tool } from "@openai/agents";
import type OpenAI from "openai";
import { toolCatalog, type ToolName } from "@agent-orchestrator/shared/wire";
import type { ExecuteTool } from "./raw-openai-loop.js";

/** One session through the OpenAI Agents SDK. */
export type AgentsSdkSession = (message: string) => Promise<string>;

/**
 * The same agent in the OpenAI Agents SDK (measure 4): chat-completions mode on the same openai client
 * and scripted model, tracing off, streamed like our loop, with our four tools (the same zod schemas)
 * running the same tool function.
 */
export function createAgentsSdkSession(client: OpenAI, model: string, systemPrompt: string, execute: ExecuteTool): AgentsSdkSession {
  const tools = (Object.keys(toolCatalog) as ToolName[]).map((name) =>
    tool({
      name,
      description: toolCatalog[name].description,
      parameters: toolCatalog[name].args,
      execute: async (args: unknown) => JSON.stringify(await execute(name, args)),
    }),
  );
  const agent = new Agent({ name: "bench-agent", instructions: systemPrompt, model: new OpenAIChatCompletionsModel(client, model), tools });
  const runner = new Runner({ tracingDisabled: true });
  return async (message) => {
    const result = await runner.run(agent, message, { stream: true });
    for await (const _event of result) {
      // the events are what a UI would show; reading them is part of a streamed run
    }
    await result.completed;
    return String(result.finalOutput ?? "");
  };
}
