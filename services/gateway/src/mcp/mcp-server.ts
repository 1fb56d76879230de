import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ElicitRequestFormParams,
} from "@modelcontextprotocol/sdk/types.js";
import { toErrorBody } from "@agent-orchestrator/shared/runtime";
import { BmadToolInput, ChatToolInput, type SignInVia } from "@agent-orchestrator/shared/wire";
import { runBmadTool } from "./bmad-tool.js";
import { runChatTool, type ChatToolPaused, type ChatToolResult } from "./chat-tool.js";
import { elicit } from "./client-elicitation.js";
import { getPrompt, listPrompts } from "./mcp-prompts.js";
import { listResources, listResourceTemplates, readResource } from "./mcp-resources.js";
import type { AgentList } from "../agents/agent-list.js";
import type { StartChat } from "../chat/start-chat.js";
import type { GatewayContext } from "../gateway-context.js";

/** What the MCP server uses besides the core: the agent list (tools, prompts) and the chat use case (the `chat` tool). */
export interface McpServices {
  agents: AgentList;
  startChat: StartChat;
}

/** Who sent the request, and what their client declared at `initialize` that this request needs (mcp-session-id.ts). */
export interface McpCaller {
  owner: string;
  signIn: SignInVia | undefined;
  /** where the request came from, for the audit record of a decision */
  clientAddress: string;
  /** the client takes form elicitation: the `chat` tool asks its user about a call waiting for a decision */
  canElicit: boolean;
}

/**
 * The MCP server for one request of `caller` (the route is stateless, so each request gets its own):
 * `bmad` (list, read, execute: docs/design.md "Activation documents") and `chat` (a turn on this server, which asks the
 * client's user about a tool call waiting for a decision when the client takes elicitation). A failure is a tool result
 * with `isError`, its code first, so the calling model can read what went wrong. Prompts are the agents and
 * their workflows, resources the files of the caller's projects and the installed BMAD files (docs/openai-api.md
 * "Prompts", "Resources"):
 * both are read from the services on every call, so they have no list to go stale, and a stateless server has
 * no stream to announce a change on (no `listChanged`, no `subscribe`).
 */
export function createMcpServer(context: GatewayContext, services: McpServices, caller: McpCaller): McpServer {
  const { agents, startChat } = services;
  const { owner } = caller;
  const server = new McpServer({ name: "agent-orchestrator", version: "0.1.0" });

  server.registerTool(
    "bmad",
    {
      title: "BMAD agents and workflows",
      description:
        "BMAD Method agents on this server. operation=list: the agents and their workflows. operation=read: one agent's definition (persona, menu) or one workflow's menu entry. operation=execute: the activation of an agent (or a workflow) in one call: who to become, how to start, the menu, and the user's request (user_context). A skill (workflow=bmad-prd, or a menu item that runs a skill) gives its resolved instructions, paths relative to the project folder, for read and execute alike. Follow the returned text to act as the agent, or run the skill, yourself.",
      inputSchema: BmadToolInput.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (input) => safely(async () => {
      const result = await runBmadTool(context, agents, input);
      return { content: [{ type: "text", text: result.text }], structuredContent: { success: true, ...result } };
    }),
  );

  server.registerTool(
    "chat",
    {
      title: "Chat with a BMAD agent on this server",
      description:
        "Runs one turn of a BMAD agent on this server's own model and tools: it reads its files, runs its workflows and saves outputs in the project (project_id; your personal default project when omitted), where later chats and the project's members find them. A tool call the project says needs a decision is asked of your user (when this client can ask them), else refused. Returns the agent's answer (the text of the whole turn), the session_id (pass it back to continue the conversation), the project_id and the project files this chat has written; or, when your user left such a call undecided, status awaiting_approval with the call.",
      inputSchema: ChatToolInput.shape,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (input, extra) => safely(async () => {
      const progressToken = extra._meta?.progressToken;
      let progress = 0;
      const onProgress = (message: string) => {
        // progress keeps a client's request timeout from ending a long turn
        if (progressToken === undefined) return;
        progress++;
        void extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, message } }).catch(() => undefined);
      };
      const transport = server.server.transport;
      // a question goes out on this call's own response stream
      const ask = caller.canElicit && transport
        ? (question: ElicitRequestFormParams, signal: AbortSignal) => elicit(context, owner, { send: (message) => transport.send(message, { relatedRequestId: extra.requestId }) }, question, signal)
        : undefined;
      const result = await runChatTool(context, startChat, { ...caller, ask, onProgress }, input, extra.signal);
      return { content: [{ type: "text", text: "status" in result ? pausedText(result) : answerText(result) }], structuredContent: { success: true, ...result } };
    }),
  );
  server.server.registerCapabilities({ prompts: {}, resources: {} });
  server.server.setRequestHandler(ListPromptsRequestSchema, (request) => asMcpError(() => listPrompts(context, agents, request.params?.cursor)));
  server.server.setRequestHandler(GetPromptRequestSchema, (request) => asMcpError(() => getPrompt(context, agents, request.params.name, request.params.arguments)));
  server.server.setRequestHandler(ListResourcesRequestSchema, (request) => asMcpError(() => listResources(context, owner, request.params?.cursor)));
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => listResourceTemplates());
  server.server.setRequestHandler(ReadResourceRequestSchema, (request) => asMcpError(() => readResource(context, owner, request.params.uri)));
  return server;
}

function answerText(result: ChatToolResult): string {
  const files = result.files.map((file) => `- ${file.path} (${file.size} bytes)`).join("\n");
  // a cut answer says so where the calling model reads it, not only in structuredContent
  const cut = result.response_truncated ? "\nresponse_truncated: true (the whole answer is in the session)" : "";
  return `${result.response}\n\n---${cut}\nsession_id: ${result.session_id}\nproject_id: ${result.project_id}${files ? `\nfiles written:\n${files}` : ""}`;
}

/** A turn left waiting: what it said, the call, and where it can still be decided. */
function pausedText(result: ChatToolPaused): string {
  const calls = result.approvals.map(
    (call) =>
      `- ${call.tool} (approval_id ${call.approval_id}) waits for a decision until ${call.expires_at}: a member who may decide it can, on this server's web page or with POST /api/sessions/${result.session_id}/approvals/${call.approval_id}; the turn then goes on, and its answer is in the session`,
  );
  return `${result.response}\n\n---\nstatus: awaiting_approval (your user did not decide)\n${calls.join("\n")}\nsession_id: ${result.session_id}\nproject_id: ${result.project_id}`;
}

/** A service's failure as a JSON-RPC error with its code first; an McpError (invalid params, not found) as it is. */
async function asMcpError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpError) throw error;
    const body = toErrorBody(error);
    throw new McpError(ErrorCode.InternalError, `${body.code}: ${body.message}`);
  }
}

async function safely(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    const body = toErrorBody(error);
    return { isError: true, content: [{ type: "text", text: `${body.code}: ${body.message}` }], structuredContent: { success: false, error: body } };
  }
}
