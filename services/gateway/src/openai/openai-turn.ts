import type { Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { subjectTokenPattern, type Attachment, type RunEvent } from "@agent-orchestrator/shared/wire";
import { currentSignIn } from "../auth/auth.js";
import { publishCancel } from "../chat/run-cancel.js";
import type { StartedRun } from "../chat/run-client.js";
import type { StartChat } from "../chat/start-chat.js";
import type { GatewayContext } from "../gateway-context.js";
import { defaultProjectAlias } from "../access/project-access.js";

/** The header (and body field `session_id`) that names the session of a `/v1` chat, in and out. */
export const sessionHeader = "x-session-id";
/** The header (and body field `project_id`) that names the project of a new `/v1` chat (absent: the caller's default), in and out. */
export const projectHeader = "x-project-id";

/** What a `/v1` request runs: the agent, the turn's message and files, and where. */
export interface OpenAiTurnPlan {
  agent_id: string;
  message: string;
  session_id?: string;
  project_id?: string;
  attachments: Attachment[];
}

/** A started `/v1` turn: its events, and `finished()` to call once the answer is sent. */
export interface OpenAiTurn {
  run: StartedRun;
  sessionId: string;
  projectId: string;
  events: AsyncIterable<RunEvent>;
  finished(): void;
}

/**
 * Starts a turn for a `/v1` door (chat completions, responses): refused turns throw before any byte is sent, so
 * they are plain errors with their status. The session and project go out in the `x-session-id` and
 * `x-project-id` headers; a client that disconnects before `finished()` cancels its turn.
 */
export async function startOpenAiTurn(context: GatewayContext, startChat: StartChat, request: Request, response: Response, plan: OpenAiTurnPlan, owner: string): Promise<OpenAiTurn> {
  // a completion cannot pause: a tool call that needs a member's decision is refused, and the model is told so
  const run = await startChat({ body: plan, owner, signIn: currentSignIn(response), clientAddress: context.clientAddress(request), approvalMode: "refuse" });
  const sessionId = run.first.session_id;
  let done = false;
  response.on("close", () => {
    run.close();
    if (!done) publishCancel(context, sessionId, run.first.run_id);
  });
  const { projectId } = run;
  response.set(sessionHeader, sessionId);
  response.set(projectHeader, projectId);
  return { run, sessionId, projectId, events: run.events, finished: () => (done = true) };
}

/** The project the client names by header or body field; `default` (or neither) is the caller's default project. */
export function namedProject(header: string | string[] | undefined, field: string | undefined): string | undefined {
  if (Array.isArray(header)) throw new AppError("VALIDATION_ERROR", `${projectHeader}: give one project id`);
  if (header !== undefined && !subjectTokenPattern.test(header)) throw new AppError("VALIDATION_ERROR", `${projectHeader}: not a project id`);
  if (header !== undefined && field !== undefined && header !== field) {
    throw new AppError("VALIDATION_ERROR", `${projectHeader} and project_id name different projects`);
  }
  const named = header ?? field;
  return named === defaultProjectAlias ? undefined : named;
}
