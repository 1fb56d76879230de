import { randomUUID } from "node:crypto";
import express, { Router, type Response } from "express";
import {
  AppError,
  ChatCompletionRequest,
  GetAgentReply,
  maxUserMessageChars,
  subjects,
  subjectTokenPattern,
  type AgentSummary,
  type Attachment,
  type Logger,
  type RunEvent,
} from "@agent-orchestrator/shared";
import { AnswerAssembler } from "./answer-assembler.js";
import { authenticate, currentUser } from "../auth/auth.js";
import { projectOfRun, startChatRun } from "../chat/chat-route.js";
import { conversationEnvelope } from "./conversation-envelope.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { completionChunk, completionObject, sseData, usageChunk, type CompletionMeta } from "./openai-completion.js";
import { readClientConversation } from "./openai-conversation.js";
import { openAiErrorHandler, toOpenAiError } from "./openai-error.js";
import { parseInput } from "../http/parse-input.js";
import { defaultProjectAlias } from "../projects/project-access.js";
import { rateLimit } from "../limits/rate-limit.js";
import { publishCancel } from "../chat/run-cancel.js";
import { findSessionHolding } from "./session-matcher.js";
import { openSseResponse, writeOrDrop } from "../chat/sse-stream.js";
import { toAppError } from "../http/to-app-error.js";
import { turnAnswer } from "../chat/turn-answer.js";
import { withModels, type AgentWithModel } from "../agents/agent-models.js";

/** The header (and body field `session_id`) that names the session of a `/v1` chat, in and out. */
export const sessionHeader = "x-session-id";
/** The header (and body field `project_id`) that names the project of a new `/v1` chat (absent: the caller's default), in and out. */
export const projectHeader = "x-project-id";

/**
 * The OpenAI-compatible API (docs/openai-api.md): agents as models, and chat completions that run the
 * agent's whole loop on this server. Same tokens as `/api` (the API key is the bearer token); every error
 * in OpenAI's shape.
 */
export function openAiRoutes(context: GatewayContext): Router {
  const router = Router();
  router.use(authenticate(context), rateLimit(context.requestRate), express.json({ limit: context.config.BODY_LIMIT_BYTES, strict: true }));

  router.get(
    "/models",
    async (_request, response) => {
      const { agents, routes } = await context.agents.current();
      response.json({ object: "list", data: withModels(agents, routes).map(toModel) });
    },
  );

  // agent ids of installed modules contain a slash (`bmm/analyst`)
  router.get(
    "/models/*id",
    async (request, response) => {
      const agentId = (request.params["id"] as unknown as string[]).join("/");
      const reply = await callService(context, subjects.registryAgentsGet, { agent_id: agentId }, GetAgentReply);
      const [agent] = withModels([reply.agent], (await context.agents.current()).routes);
      response.json(toModel(agent ?? reply.agent));
    },
  );

  router.post(
    "/chat/completions",
    async (request, response) => {
      const body = parseInput(ChatCompletionRequest, request.body, "body");
      const owner = currentUser(response);
      const projectId = namedProject(request.headers[projectHeader], body.project_id);
      const turn = await planTurn(context, owner, body, request.headers[sessionHeader], projectId);
      const run = await startChatRun(context, { agent_id: body.model, project_id: projectId, ...turn }, owner, context.clientAddress(request));
      const sessionId = run.first.session_id;
      response.set(sessionHeader, sessionId);
      response.set(projectHeader, await projectOfRun(context, run, owner));
      let finished = false;
      response.on("close", () => {
        run.close();
        if (!finished) publishCancel(context, sessionId, run.first.run_id);
      });
      const meta: CompletionMeta = { id: `chatcmpl-${run.first.run_id}`, created: Math.floor(Date.now() / 1000), model: body.model };
      const events = context.metrics.observe(run.events);
      if (body.stream) await streamCompletion(response, events, meta, body.stream_options?.include_usage === true);
      else await answerCompletion(response, events, meta, sessionId);
      finished = true;
    },
  );

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
 * session gets the last user message; otherwise the session that holds exactly the earlier messages;
 * otherwise a new session whose first message carries the client's instructions and history once. Either way
 * the turn attaches the last user message's files only (openai-conversation.ts).
 */
async function planTurn(
  context: GatewayContext,
  owner: string,
  body: ChatCompletionRequest,
  header: string | string[] | undefined,
  projectId: string | undefined,
): Promise<{ message: string; session_id?: string; attachments: Attachment[] }> {
  const conversation = readClientConversation(body.messages);
  const { attachments } = conversation;
  const named = namedSession(header, body.session_id);
  if (named) return { message: conversation.message, session_id: named, attachments };
  const found = await findSessionHolding(context, owner, body.model, conversation, projectId);
  if (found) return { message: conversation.message, session_id: found, attachments };
  const message = conversationEnvelope(conversation.instructions, conversation.earlier, conversation.message);
  if (message.length > maxUserMessageChars) {
    throw new AppError(
      "VALIDATION_ERROR",
      `messages: the conversation is too long to start a session with (${maxUserMessageChars} characters at most); continue a session with the ${sessionHeader} header instead`,
    );
  }
  return { message, attachments };
}

function namedSession(header: string | string[] | undefined, field: string | undefined): string | undefined {
  if (Array.isArray(header)) throw new AppError("VALIDATION_ERROR", `${sessionHeader}: give one session id`);
  if (header !== undefined && !subjectTokenPattern.test(header)) throw new AppError("VALIDATION_ERROR", `${sessionHeader}: not a session id`);
  if (header !== undefined && field !== undefined && header !== field) {
    throw new AppError("VALIDATION_ERROR", `${sessionHeader} and session_id name different sessions`);
  }
  return header ?? field;
}

/** The project the client names by header or body field; `default` (or neither) is the caller's default project. */
function namedProject(header: string | string[] | undefined, field: string | undefined): string | undefined {
  if (Array.isArray(header)) throw new AppError("VALIDATION_ERROR", `${projectHeader}: give one project id`);
  if (header !== undefined && !subjectTokenPattern.test(header)) throw new AppError("VALIDATION_ERROR", `${projectHeader}: not a project id`);
  if (header !== undefined && field !== undefined && header !== field) {
    throw new AppError("VALIDATION_ERROR", `${projectHeader} and project_id name different projects`);
  }
  const named = header ?? field;
  return named === defaultProjectAlias ? undefined : named;
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
 * comments (`: tool_call read_file`), which clients ignore and which keep proxies from closing a quiet
 * stream. A failure after the status line is a last `data: {"error": …}`, which OpenAI clients raise.
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

/**
 * What one run event adds to the stream. A subagent's events (`parent_call_id`) are its own conversation:
 * they show only as comments, never in the answer.
 */
function streamedText(event: RunEvent, answer: AnswerAssembler, meta: CompletionMeta, includeUsage: boolean): string {
  const nested = (event.type === "delta" || event.type === "tool_call" || event.type === "tool_result") && event.parent_call_id !== undefined;
  if (event.type === "delta") {
    if (nested) return "";
    const text = answer.add(event.text);
    return text === "" ? "" : sseData(completionChunk(meta, { content: text }, null, includeUsage));
  }
  if (event.type === "tool_call") {
    if (!nested) answer.toolRound();
    return `: tool_call ${event.name}\n\n`;
  }
  if (event.type === "tool_result") return `: tool_result ${event.name} ${event.success ? "ok" : (event.error_code ?? "failed")}\n\n`;
  if (event.type === "error") throw new AppError(event.error.code, event.error.message);
  if (event.type === "done") {
    return sseData(completionChunk(meta, {}, "stop", includeUsage)) + (includeUsage ? sseData(usageChunk(meta, event.usage)) : "");
  }
  return "";
}
