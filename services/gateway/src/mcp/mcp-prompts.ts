import { ErrorCode, McpError, type GetPromptResult, type ListPromptsResult, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AppError, mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { ChatToolInput, type AgentDefinition, type AgentSummary, type MenuItem } from "@agent-orchestrator/shared/wire";
import type { AgentList } from "../agents/agent-list.js";
import type { GatewayContext } from "../gateway-context.js";
import { getAgent } from "./bmad-tool.js";
import { decodeCursor, encodeCursor } from "./mcp-cursor.js";
import { menuTarget } from "./workflow-activation.js";

/** Prompts in one `prompts/list` page. */
export const promptPageSize = 100;
/** Agent definitions read at once to list their menus. */
const listConcurrency = 8;

const PromptCursor = z.object({ offset: z.number().int().positive() });

/** A prompt's arguments: the request to the agent and the project; an empty string, as some clients send for a field left blank, is none. */
const PromptArguments = z.object({
  message: z.preprocess(blankToUndefined, ChatToolInput.shape.message.optional()),
  project_id: z.preprocess(blankToUndefined, ChatToolInput.shape.project_id),
});

const projectArgument = { name: "project_id", description: "the project the agent works in (its files are the project's); your personal default project when omitted", required: false };

/**
 * `prompts/list` (docs/openai-api.md "Prompts"): each agent (named by its id: start a chat with it) and each
 * menu item of it that runs a workflow (`<agent id>:<menu code>`), from the registry's agent list as the
 * gateway keeps it, so a change the registry announces shows on the next call. Paged by `promptPageSize`.
 */
export async function listPrompts(context: GatewayContext, agentList: AgentList, cursor: string | undefined): Promise<ListPromptsResult> {
  const start = decodeCursor(cursor, PromptCursor)?.offset ?? 0;
  const agents = await mapWithConcurrency(await agentList.list(), listConcurrency, (summary) =>
    // an agent whose definition cannot be read is still offered, without its workflows
    getAgent(context, summary.id).catch((): AgentSummary => summary),
  );
  const prompts = agents.flatMap((agent) => [agentPrompt(agent), ...("menu" in agent ? workflowItems(agent).map((item) => workflowPrompt(agent, item)) : [])]);
  const end = start + promptPageSize;
  return { prompts: prompts.slice(start, end), ...(end < prompts.length ? { nextCursor: encodeCursor({ offset: end }) } : {}) };
}

/**
 * `prompts/get`: a user message asking the client's model to call this server's `chat` tool with the agent
 * and the message the prompt names, so picking the prompt runs the agent (or its workflow) on this server.
 */
export async function getPrompt(context: GatewayContext, agentList: AgentList, name: string, input: Record<string, string> | undefined): Promise<GetPromptResult> {
  const parsed = PromptArguments.safeParse(input ?? {});
  if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  const { message, project_id: projectId } = parsed.data;
  const summaries = await agentList.list();
  const summary = summaries.find((agent) => agent.id === name);
  if (summary) {
    const chat = { agent_id: summary.id, message: message ?? "Hello", ...(projectId ? { project_id: projectId } : {}) };
    return { description: agentPrompt(summary).description, messages: [userText(chatRequest(`Start a chat with ${who(summary)}`, chat))] };
  }
  const owner = summaries.find((agent) => name.startsWith(`${agent.id}:`));
  const agent = owner ? await getAgent(context, owner.id).catch(notFoundAs(name)) : undefined;
  const code = owner ? name.slice(owner.id.length + 1) : "";
  const item = agent ? workflowItems(agent).find((entry) => menuCode(entry) === code) : undefined;
  if (!agent || !item) throw new McpError(ErrorCode.InvalidParams, `No prompt named ${name}`);
  // a BMAD agent runs a menu item when the user types its code; the request follows it
  const chat = { agent_id: agent.id, message: message ? `${item.trigger} ${message}` : item.trigger, ...(projectId ? { project_id: projectId } : {}) };
  const description = workflowPrompt(agent, item).description;
  return { description, messages: [userText(chatRequest(`Run the BMAD workflow "${item.description}" with ${who(agent)}`, chat))] };
}

function agentPrompt(agent: AgentSummary): Prompt {
  return {
    name: agent.id,
    title: `${agent.icon ? `${agent.icon} ` : ""}${agent.name}${agent.title ? `, ${agent.title}` : ""}`,
    description: `Start a chat with ${who(agent)} on this server${agent.description ? `: ${agent.description}` : ""}`,
    arguments: [{ name: "message", description: "what you say to the agent first", required: false }, projectArgument],
  };
}

function workflowPrompt(agent: AgentDefinition, item: MenuItem): Prompt {
  return {
    name: `${agent.id}:${menuCode(item)}`,
    title: `${agent.name}: ${item.description}`,
    description: `${agent.name}: ${lowerFirst(item.description)}`,
    arguments: [{ name: "message", description: "what you want from this workflow (your idea, the document to work on); the workflow asks when omitted", required: false }, projectArgument],
  };
}

/** The menu items that run a workflow, a task or a skill, once per code. */
function workflowItems(agent: AgentDefinition): MenuItem[] {
  const byCode = new Map<string, MenuItem>();
  for (const item of agent.menu) if (menuTarget(item) !== undefined && !byCode.has(menuCode(item))) byCode.set(menuCode(item), item);
  return [...byCode.values()];
}

const menuCode = (item: MenuItem): string => item.trigger.replace(/^\*/, "");
const who = (agent: AgentSummary): string => `${agent.name}${agent.title ? ` (${agent.title})` : ""}`;
const lowerFirst = (text: string): string => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

function chatRequest(purpose: string, chat: { agent_id: string; message: string; project_id?: string }): string {
  return [
    `${purpose} on the Agent Orchestrator server: call this server's \`chat\` tool with these arguments:`,
    `- agent_id: ${chat.agent_id}`,
    `- message: ${chat.message}`,
    ...(chat.project_id ? [`- project_id: ${chat.project_id}`] : []),
    "",
    `As JSON: ${JSON.stringify(chat)}`,
    "",
    "Show me the agent's answer. When I reply, call `chat` again with my words as `message` and the `session_id` the first call returned, so the agent goes on with the same conversation.",
  ].join("\n");
}

const userText = (text: string): GetPromptResult["messages"][number] => ({ role: "user", content: { type: "text", text } });

function blankToUndefined(value: unknown): unknown {
  return value === "" ? undefined : value;
}

/** An agent gone between the list and the read is no prompt; other failures stay what they are. */
function notFoundAs(name: string) {
  return (error: unknown): never => {
    if (AppError.is(error) && error.code === "AGENT_NOT_FOUND") throw new McpError(ErrorCode.InvalidParams, `No prompt named ${name}`);
    throw error;
  };
}
