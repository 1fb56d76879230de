import { createHash } from "node:crypto";
import { Router, type Response } from "express";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { ResponseCreateRequest, type RunEvent, type StoredResponse } from "@agent-orchestrator/shared/wire";
import { currentUser } from "../auth/auth.js";
import { turnAnswer } from "../chat/turn-answer.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { conversationEnvelope } from "./conversation-envelope.js";
import type { ClientConversation } from "./openai-conversation.js";
import type { StartChat } from "../chat/start-chat.js";
import { namedProject, projectHeader, startOpenAiTurn, type OpenAiTurnPlan } from "./openai-turn.js";
import { readableResponse } from "./response-access.js";
import type { ResponseStore } from "./response-store.js";
import { readResponseInput } from "./response-input.js";
import { responseObject } from "./response-object.js";
import { streamResponse } from "./response-stream.js";
import { failedResponse, type ResponseEnd } from "./response-turn-end.js";
import { planStatelessTurn } from "./stateless-turn.js";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * The Responses API (docs/openai-api.md "Responses"): `POST /responses` runs one turn of the agent named by
 * `model`, streamed as typed events or answered whole; `GET /responses/:id` reads a stored one. The chat is the
 * state: a response is a turn of a chat, found again by its id in the gateway's `responses` bucket, and
 * `previous_response_id` continues that chat. Mounted inside `/v1`, behind its sign-in and error handler.
 */
export function responsesRoutes(context: GatewayContext, { startChat, responses }: { startChat: StartChat; responses: ResponseStore }): Router {
  const router = Router();

  router.post(
    "/responses",
    async (request, response) => {
      const body = parseInput(ResponseCreateRequest, request.body, "body");
      const owner = currentUser(response);
      const projectId = namedProject(request.headers[projectHeader], body.project_id);
      const conversation = readResponseInput(body);
      const previous = body.previous_response_id ? await previousResponse(context, responses, body.previous_response_id, owner, body.model, projectId) : undefined;
      const plan: OpenAiTurnPlan = previous
        ? { agent_id: body.model, ...followUp(previous, conversation) }
        : { agent_id: body.model, project_id: projectId, ...(await planStatelessTurn(context, owner, body.model, conversation, projectId, { field: "input", continueWith: "previous_response_id" })) };
      const turn = await startOpenAiTurn(context, startChat, request, response, plan, owner);
      const record: StoredResponse = {
        id: `resp_${turn.run.first.run_id}`,
        session_id: turn.sessionId,
        run_id: turn.run.first.run_id,
        model: body.model,
        project_id: turn.projectId,
        created_at: Math.floor(Date.now() / 1000),
        status: "in_progress",
        ...instructionsInEffect(conversation, previous),
        previous_response_id: body.previous_response_id ?? null,
        output_text: "",
        response_truncated: false,
        usage: null,
        error: null,
      };
      const store = body.store !== false;
      const end: ResponseEnd = {
        store,
        persist: (kept) => (store ? responses.put(kept) : Promise.resolve()),
        clientGone: () => response.destroyed,
        logger: response.locals["logger"] as Logger,
      };
      // stored before the client hears of it, so any replica can read or continue it from the first event
      await end.persist(record);
      if (body.stream) await streamResponse(response, turn.events, record, end);
      else await answerResponse(response, turn.events, record, end);
      turn.finished();
    },
  );

  router.get(
    "/responses/:id",
    async (request, response) => {
      const { record, session } = await readableResponse(context, responses, request.params["id"] ?? "", currentUser(response));
      // a record still in progress whose turn no longer runs lost its end with the gateway that served it
      const shown: StoredResponse = record.status === "in_progress" && session.run_id !== record.run_id ? { ...record, status: "incomplete" } : record;
      response.json(responseObject(shown, true));
    },
  );

  return router;
}

/**
 * The response a follow-up continues, if the caller may continue its chat: only the chat's owner runs its turns
 * (other members of its project may read it), with the same agent, in the chat's own project.
 */
async function previousResponse(context: GatewayContext, responses: ResponseStore, id: string, owner: string, model: string, projectId: string | undefined): Promise<StoredResponse> {
  const { record, session } = await readableResponse(context, responses, id, owner, "Previous response");
  if (session.owner !== owner) throw new AppError("PROJECT_FORBIDDEN", "Only the member whose chat this is can continue it");
  if (session.agent_id !== model) throw new AppError("VALIDATION_ERROR", `model: the chat of previous_response_id is with ${session.agent_id}`);
  if (projectId !== undefined && projectId !== session.project_id) {
    throw new AppError("VALIDATION_ERROR", `${projectHeader}: the chat of previous_response_id is in project ${session.project_id}`);
  }
  return record;
}

/**
 * A follow-up's turn: the chat holds the conversation, so the input is only the new message. The instructions
 * reach the model once, at the start of the chat, and again only when a follow-up's differ from its previous
 * response's (docs/openai-api.md "Responses").
 */
function followUp(previous: StoredResponse, conversation: ClientConversation): Omit<OpenAiTurnPlan, "agent_id"> {
  if (conversation.earlier.length > 0) {
    throw new AppError("VALIDATION_ERROR", "input: with previous_response_id send only the new user message; the chat holds the conversation");
  }
  const changed = conversation.instructions !== "" && sha256(conversation.instructions) !== previous.instructions_sha256;
  const message = changed ? conversationEnvelope(conversation.instructions, [], conversation.message) : conversation.message;
  return { message, session_id: previous.session_id, attachments: conversation.attachments };
}

/** The instructions the model has from this chat: the request's, or when it gives none, those before it. */
function instructionsInEffect(conversation: ClientConversation, previous: StoredResponse | undefined): Pick<StoredResponse, "instructions" | "instructions_sha256"> {
  if (conversation.instructions !== "") return { instructions: conversation.instructions, instructions_sha256: sha256(conversation.instructions) };
  return { instructions: previous?.instructions ?? null, instructions_sha256: previous?.instructions_sha256 ?? null };
}

/** Waits for the turn's end and answers the whole response; a failed turn is an error in OpenAI's shape. */
async function answerResponse(response: Response, events: AsyncIterable<RunEvent>, record: StoredResponse, end: ResponseEnd): Promise<void> {
  for await (const event of events) {
    if (event.type === "error") {
      const error = new AppError(event.error.code, event.error.message);
      await failedResponse(record, error, end);
      throw error;
    }
    if (event.type === "done") {
      const answer = turnAnswer(event);
      const completed: StoredResponse = { ...record, status: "completed", output_text: answer.response, response_truncated: answer.response_truncated, usage: event.usage };
      await end.persist(completed);
      response.json(responseObject(completed, end.store));
      return;
    }
  }
  const error = new AppError("SERVICE_UNAVAILABLE", "The turn ended without an answer");
  await failedResponse(record, error, end);
  throw error;
}
