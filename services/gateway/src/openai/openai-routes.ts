import { Router, type Response } from "express";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { ChatCompletionRequest, GetAgentReply, subjects, subjectTokenPattern, type Attachment, type RunEvent } from "@agent-orchestrator/shared/wire";
import { AnswerAssembler } from "./answer-assembler.js";
import { authenticate, currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { completionChunk, completionObject, sseData, usageChunk, type CompletionMeta } from "./openai-completion.js";
import { readClientConversation } from "./openai-conversation.js";
import { openAiErrorHandler, toOpenAiError } from "./openai-error.js";
import { namedProject, projectHeader, sessionHeader, startOpenAiTurn } from "./openai-turn.js";
import { parseInput } from "../http/parse-input.js";
import { rateLimit } from "../limits/rate-limit.js";
import { relayedPiece } from "./relayed-piece.js";
import { responsesRoutes } from "./responses-routes.js";
import { planStatelessTurn } from "./stateless-turn.js";
import { openSseResponse, writeOrDrop } from "../http/sse-stream.js";
import { toAppError } from "../http/to-app-error.js";
import { turnAnswer } from "../chat/turn-answer.js";
import type { AgentList } from "../agents/agent-list.js";
import { withModels, type AgentWithModel } from "../agents/agent-models.js";
import type { SignInServices } from "../auth/sign-in-services.js";
import type { StartChat } from "../chat/start-chat.js";
import type { UserRateLimit } from "../limits/user-rate-limit.js";
import type { ResponseStore } from "./response-store.js";
import { jsonBody } from "../http/json-body.js";

/**
 * The OpenAI-compatible API (docs/openai-api.md): agents as models, and chat completions and responses that run
 * the agent's whole loop on this server. Same tokens as `/api` (the API key is the bearer token); every error
 * in OpenAI's shape.
 */
/** What `/v1` uses besides the core: sign-in, the request budget, the agent list, the chat use case and the stored responses. */
export interface OpenAiServices {
  auth: SignInServices;
  requestRate: UserRateLimit;
  agents: AgentList;
  startChat: StartChat;
  responses: ResponseStore;
}

export function openAiRoutes(context: GatewayContext, services: OpenAiServices): Router {
  const router = Router();
  const agentList = services.agents;
  router.use(authenticate(context, services.auth), rateLimit(services.requestRate), jsonBody(context.config.BODY_LIMIT_BYTES));

  router.get(
    "/models",
    async (_request, response) => {
      const { agents, routes } = await agentList.current();
      response.json({ object: "list", data: withModels(agents, routes).map(toModel) });
    },
  );

  // agent ids of installed modules contain a slash (`bmm/analyst`)
  router.get(
    "/models/*id",
    async (request, response) => {
      const agentId = (request.params["id"] as unknown as string[]).join("/");
      const reply = await callService(context, subjects.registryAgentsGet, { agent_id: agentId }, GetAgentReply);
      const [agent] = withModels([reply.agent], (await agentList.current()).routes);
      response.json(toModel(agent ?? reply.agent));
    },
  );

  router.post(
    "/chat/completions",
    async (request, response) => {
      const body = parseInput(ChatCompletionRequest, request.body, "body");
      const owner = currentUser(response);
      const projectId = namedProject(request.headers[projectHeader], body.project_id);
      const plan = await planTurn(context, owner, body, request.headers[sessionHeader], projectId);
      const turn = await startOpenAiTurn(context, services.startChat, request, response, { agent_id: body.model, project_id: projectId, ...plan }, owner);
      const meta: CompletionMeta = { id: `chatcmpl-${turn.run.first.run_id}`, created: Math.floor(Date.now() / 1000), model: body.model };
      if (body.stream) await streamCompletion(response, turn.events, meta, body.stream_options?.include_usage === true);
      else await answerCompletion(response, turn.events, meta, turn.sessionId);
      turn.finished();
    },
  );

  router.use(responsesRoutes(context, services));

  router.use((_request, _response, next) => next(new AppError("NOT_FOUND", "No such route")));
  router.use(openAiErrorHandler);
  return router;
}

/** An agent as an OpenAI model; `name`, `description` and the model that answers it (docs/models.md) are extras some clients show. */
const toModel = (agent: AgentWithModel) => ({
  id: agent.id,
  object: "model",
  created: 0,
  owned_by: agent.bundleName,
  name: agent.title ? `${agent.name} (${agent.title})` : agent.name,
  description: agent.description,
  ...(agent.model ? { model: agent.model } : {}),
});

/**
 * Which session the turn runs in and what its message is (docs/openai-api.md "Sessions"): a named
 * session gets the last user message; otherwise as for any client that sends its whole conversation
 * (stateless-turn.ts). Either way the turn attaches the last user message's files only (openai-conversation.ts).
 */
async function planTurn(
  context: GatewayContext,
  owner: string,
  body: ChatCompletionRequest,
  header: string | string[] | undefined,
  projectId: string | undefined,
): Promise<{ message: string; session_id?: string; attachments: Attachment[] }> {
  const conversation = readClientConversation(body.messages);
  const named = namedSession(header, body.session_id);
  if (named) return { message: conversation.message, session_id: named, attachments: conversation.attachments };
  return planStatelessTurn(context, owner, body.model, conversation, projectId, { field: "messages", continueWith: `the ${sessionHeader} header` });
}

function namedSession(header: string | string[] | undefined, field: string | undefined): string | undefined {
  if (Array.isArray(header)) throw new AppError("VALIDATION_ERROR", `${sessionHeader}: give one session id`);
  if (header !== undefined && !subjectTokenPattern.test(header)) throw new AppError("VALIDATION_ERROR", `${sessionHeader}: not a session id`);
  if (header !== undefined && field !== undefined && header !== field) {
    throw new AppError("VALIDATION_ERROR", `${sessionHeader} and session_id name different sessions`);
  }
  return header ?? field;
}

async function answerCompletion(response: Response, events: AsyncIterable<RunEvent>, meta: CompletionMeta, sessionId: string): Promise<void> {
  for await (const event of events) {
    if (event.type === "error") throw new AppError(event.error.code, event.error.message);
    if (event.type === "done") {
      response.json(completionObject(meta, turnAnswer(event), event.usage, sessionId));
      return;
    }
  }
  throw new AppError("SERVICE_UNAVAILABLE", "The turn ended without an answer");
}

/**
 * Streams the turn as `chat.completion.chunk`s: the role first, then the text, then a chunk with
 * `finish_reason`, the usage chunk when asked for, and `[DONE]`. Tool activity is sent only as SSE
 * comments. A failure after the status line is a last `data: {"error": …}`, which OpenAI clients raise.
 */
async function streamCompletion(response: Response, events: AsyncIterable<RunEvent>, meta: CompletionMeta, includeUsage: boolean): Promise<void> {
  openSseResponse(response);
  response.write(sseData(completionChunk(meta, { role: "assistant", content: "" }, null, includeUsage)));
  const answer = new AnswerAssembler();
  try {
    for await (const event of events) {
      const text = streamedText(event, answer, meta, includeUsage);
      if (text !== "" && !(await writeOrDrop(response, text))) return;
      if (event.type === "done") {
        response.end("data: [DONE]\n\n");
        return;
      }
    }
    throw new AppError("SERVICE_UNAVAILABLE", "The turn ended without an answer");
  } catch (error) {
    response.end(sseData(toOpenAiError(toAppError(error, response.locals["logger"] as Logger)).body));
  }
}

/** What one run event adds to the stream (relayed-piece.ts), as chunks. */
function streamedText(event: RunEvent, answer: AnswerAssembler, meta: CompletionMeta, includeUsage: boolean): string {
  if (event.type === "error") throw new AppError(event.error.code, event.error.message);
  if (event.type === "done") {
    return sseData(completionChunk(meta, {}, "stop", includeUsage)) + (includeUsage ? sseData(usageChunk(meta, event.usage)) : "");
  }
  const piece = relayedPiece(event, answer);
  if (piece === undefined) return "";
  return "comment" in piece ? piece.comment : sseData(completionChunk(meta, { content: piece.text }, null, includeUsage));
}
