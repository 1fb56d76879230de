import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "@agent-orchestrator/shared/runtime";
import {
  FilesListReply,
  joinAnswerTexts,
  subjects,
  type ChatToolInput,
  type FileListing,
  type FileSpaceRef,
  type PendingCall,
  type RunEvent,
  type SignInVia,
  type Usage,
} from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { decideApproval } from "../chat/approval-decision.js";
import { replayRun } from "../chat/event-replay.js";
import { publishCancel } from "../chat/run-cancel.js";
import { chatWorkFiles, type WorkingTreeFile } from "./chat-work-files.js";
import type { StartChat } from "../chat/start-chat.js";
import { turnAnswer, type TurnAnswer } from "../chat/turn-answer.js";
import { approvalAnswer, approvalQuestion } from "./approval-question.js";
import type { ElicitationOutcome } from "./client-elicitation.js";

export interface ChatToolResult extends TurnAnswer {
  session_id: string;
  project_id: string;
  iterations: number;
  usage: Usage;
  /**
   * what this chat has written, by the virtual paths its tools used: the project's files whose latest revision
   * it wrote (`{project-root}/…`; in a project with a git repository, the files its work added or changed in its
   * working tree) and its own scratch files (`{session-folder}/…`)
   */
  files: Array<FileListing | WorkingTreeFile>;
}

/**
 * A turn paused at a call the client's user was asked about and did not decide (they dismissed the question, or the
 * client failed to ask): the call waits for a decision from another door, as `POST /api/chat`'s 202 answer says.
 */
export interface ChatToolPaused {
  status: "awaiting_approval";
  session_id: string;
  project_id: string;
  /** what the turn said before it paused */
  response: string;
  approvals: PendingCall[];
}

/** Who calls the `chat` tool, and how the tool reaches them besides its result. */
export interface ChatToolCaller {
  owner: string;
  /** how the owner signed in (their display name is `user_name`'s default) */
  signIn: SignInVia | undefined;
  /** where the call came from, for the audit record of a decision */
  clientAddress: string;
  /** asks the client's user (MCP elicitation); absent when the client cannot be asked: then a call that would wait is refused */
  ask: ((question: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitationOutcome>) | undefined;
  /** progress the client hears: each tool call, each question */
  onProgress: (message: string) => void;
}

/** Questions about one call at most, when the answers cannot be taken (an edited value the tool refuses). */
const maxQuestions = 3;

/**
 * The MCP tool `chat`: one turn on this server's loop and model, like `POST /api/chat`. A tool call that waits for a
 * decision (docs/approvals.md) is asked of the client's user through elicitation when the client takes it: their answer
 * is the owner's decision (agent.approval.decide, audited), and the tool follows the resumed turn to its answer
 * (docs/openai-api.md "Approvals through elicitation"); a client that cannot be asked starts turns that refuse such a
 * call, and the model is told why. An aborted call cancels the turn, a paused one included.
 */
export async function runChatTool(context: GatewayContext, startChat: StartChat, caller: ChatToolCaller, input: ChatToolInput, signal: AbortSignal): Promise<ChatToolResult | ChatToolPaused> {
  const { owner, signIn } = caller;
  const run = await startChat({ body: input, owner, signIn, approvalMode: caller.ask ? "pause" : "refuse" });
  const sessionId = run.first.session_id;
  let runId = run.first.run_id;
  const cancel = () => {
    run.close();
    publishCancel(context, sessionId, runId, owner);
  };
  signal.addEventListener("abort", cancel, { once: true });
  try {
    // the text of each model call before a pause: a resumed run's `done` holds only its own
    const said: string[] = [];
    let events: AsyncIterable<RunEvent> = run.events;
    for (;;) {
      const ending = await followRun(events, caller.onProgress, said, signal);
      if (ending.type === "error") throw new AppError(ending.error.code, ending.error.message);
      if (ending.type === "done") {
        const { projectId } = run;
        const [project, scratch] = await Promise.all([projectFilesWritten(context, owner, { projectId, sessionId }), listSpace(context, { kind: "session", id: sessionId })]);
        const files = [...project, ...scratch.map((file) => ({ ...file, path: `{session-folder}/${file.path}` }))];
        const answer = turnAnswer(ending);
        return { session_id: sessionId, project_id: projectId, ...answer, response: joinAnswerTexts([...said, answer.response]), iterations: ending.iterations, usage: ending.usage, files };
      }
      const { type: _type, session_id: _session, run_id: _run, seq: _seq, ...call } = ending;
      if (!caller.ask || (await askUntilDecided(context, { ...caller, ask: caller.ask }, sessionId, call, signal)) === "undecided") {
        return { status: "awaiting_approval", session_id: sessionId, project_id: run.projectId, response: joinAnswerTexts(said), approvals: [call] };
      }
      // the resumed run is named by the approval; its events are read from the stream's start, so none is missed
      runId = call.approval_id;
      events = replayRun({ connection: context.connection, logger: context.logger, subjectPrefix: context.subjectPrefix, idleTimeoutMs: context.config.CHAT_IDLE_TIMEOUT_MS, signal }, sessionId, runId);
    }
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** One run's events up to its last (`done`, `error`, `approval_required`), each tool call told as progress and the text said collected into `said`, model call by model call. */
async function followRun(events: AsyncIterable<RunEvent>, onProgress: (message: string) => void, said: string[], signal: AbortSignal): Promise<Extract<RunEvent, { type: "done" | "error" | "approval_required" }>> {
  // this run's text per model call: kept only when the run pauses, since its `done` already holds them all
  const texts: string[] = [];
  let text = "";
  for await (const event of events) {
    // a subagent's text is its parent's tool result, not the turn's
    if (event.type === "delta" && event.parent_call_id === undefined) text += event.text;
    if (event.type === "tool_call") {
      onProgress(`tool: ${event.name}`);
      if (event.parent_call_id === undefined) {
        texts.push(text);
        text = "";
      }
    }
    if (event.type === "approval_required") said.push(...texts, text);
    if (event.type === "done" || event.type === "error" || event.type === "approval_required") return event;
  }
  throw new AppError(signal.aborted ? "CANCELLED" : "SERVICE_UNAVAILABLE", "The turn ended without an answer");
}

/**
 * Asks the client's user about `call` until they decide (`resumed`: the decision was recorded and the turn resumes) or
 * do not (`undecided`). A decision from anywhere else, an expiry or a cancel resumes the turn too: the question is then
 * withdrawn. An answer that cannot be taken (an edited value the tool refuses) is asked again, saying why.
 */
async function askUntilDecided(
  context: GatewayContext,
  caller: ChatToolCaller & { ask: NonNullable<ChatToolCaller["ask"]> },
  sessionId: string,
  call: PendingCall,
  signal: AbortSignal,
): Promise<"resumed" | "undecided"> {
  // the resumed run's first event: the call no longer waits for this user
  const resumed = new AbortController();
  const watch = context.connection.subscribe(context.subjectPrefix + subjects.runEvents(sessionId, call.approval_id), { max: 1, callback: () => resumed.abort() });
  const stop = AbortSignal.any([resumed.signal, signal]);
  try {
    let note: string | undefined;
    for (let asked = 0; asked < maxQuestions; asked++) {
      caller.onProgress(`approval: ${call.tool} waits for your decision`);
      const outcome = await caller.ask(approvalQuestion(call, note), stop);
      if (signal.aborted) throw new AppError("CANCELLED", "The call was cancelled");
      if (outcome.outcome === "withdrawn") return "resumed";
      if (outcome.outcome === "failed") {
        context.logger.info({ sessionId, approvalId: call.approval_id, reason: outcome.message }, "the MCP client did not ask its user; the call waits");
        return "undecided";
      }
      const answer = approvalAnswer(call, outcome.result);
      if ("undecided" in answer) return "undecided";
      if ("invalid" in answer) {
        note = `Your answer was not taken: ${answer.invalid}`;
        continue;
      }
      try {
        await decideApproval(context, { user: caller.owner, sessionId, approvalId: call.approval_id, clientAddress: caller.clientAddress }, answer.decided);
        return "resumed";
      } catch (error) {
        // decided, expired or cancelled meanwhile: the resumed run says how
        if (error instanceof AppError && error.code === "APPROVAL_DECIDED") return "resumed";
        if (!(error instanceof AppError && error.code === "VALIDATION_ERROR")) throw error;
        note = `Your answer was not taken: ${error.message}`;
      }
    }
    return "undecided";
  } finally {
    watch.unsubscribe();
  }
}

/**
 * The project's files the chat wrote, as `{project-root}/…`: in a project with a git repository, its working tree's
 * changes (chat-work-files.ts), else the stored files whose latest revision it wrote. A failure only leaves them out.
 */
async function projectFilesWritten(context: GatewayContext, owner: string, chat: { projectId: string; sessionId: string }): Promise<Array<FileListing | WorkingTreeFile>> {
  const inTree = await chatWorkFiles(context, owner, chat).catch((error: unknown) => {
    context.logger.warn({ err: error, session_id: chat.sessionId }, "a chat's working tree changes could not be read; its result lists none");
    return [];
  });
  if (inTree !== undefined) return inTree;
  const stored = await listSpace(context, { kind: "project", id: chat.projectId });
  return stored.filter((file) => file.author.session_id === chat.sessionId).map((file) => ({ ...file, path: `{project-root}/${file.path}` }));
}

/** The owner just ran a turn in this chat and project, so they may read both; a listing that fails only leaves its files out. */
async function listSpace(context: GatewayContext, space: FileSpaceRef): Promise<FileListing[]> {
  const listing = await callService(context, subjects.files("list"), { space }, FilesListReply).catch(() => undefined);
  return listing?.files ?? [];
}
