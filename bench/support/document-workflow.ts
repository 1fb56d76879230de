/**
 * Measure 13's PRD workflow (prd-workflow.ts) through the real system: one chat of ten turns, one per step,
 * each a `POST /api/chat` to the gateway answered as JSON, the scripted model making the step's tool calls one
 * model call each and then its answer. The user's message names the mode and the step (`whole step 3`), so one
 * responder serves both modes; its output can be paced at a real model's rate.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { settleMs } from "./bench-settings.js";
import type { BenchSystem } from "./bench-system.js";
import { chatJson, type ChatAnswer } from "./gateway-client.js";
import { documentPath, stepAnswer, stepCalls, workflowSteps, type WritingMode } from "./prd-workflow.js";

/** The scripted model's side of the workflow. */
export interface WorkflowResponder {
  respond(request: ChatRequestBody): ScriptedTurn;
  /** the pace of the model's output (0: at once) */
  outputTokensPerSecond: number;
  /** the tool results the model received that were failures, as it saw them */
  failures: string[];
}

export function createWorkflowResponder(): WorkflowResponder {
  const responder: WorkflowResponder = {
    outputTokensPerSecond: 0,
    failures: [],
    respond(request) {
      const lastUser = request.messages.findLastIndex((message) => message.role === "user");
      const [mode, , step] = withoutSystemNote(String(request.messages[lastUser]?.content ?? "")).split(" ");
      const results = request.messages.slice(lastUser + 1).filter((message) => message.role === "tool");
      const latest = results.at(-1);
      if (latest && !succeeded(latest.content)) responder.failures.push(String(latest.content).slice(0, 300));
      const call = stepCalls(mode as WritingMode, Number(step))[results.length];
      const turn: ScriptedTurn = call ? { toolCalls: [call] } : { text: stepAnswer(Number(step)) };
      return responder.outputTokensPerSecond > 0 ? { ...turn, outputTokensPerSecond: responder.outputTokensPerSecond } : turn;
    },
  };
  return responder;
}

function succeeded(content: unknown): boolean {
  try {
    return (JSON.parse(String(content)) as { success?: unknown }).success === true;
  } catch {
    return false;
  }
}

/** What one run of the workflow cost, as the system recorded it, and what it left. */
export interface WorkflowRun {
  mode: WritingMode;
  /** the model's output (tool names, arguments, text) over the run, from the usage the system records */
  outputTokens: number;
  /** the prompts of every model call over the run (each call sends the whole chat so far) */
  inputTokens: number;
  /** the ten turns, from each request sent to its answer received, added up */
  wallMs: number;
  modelCalls: number;
  /** the document as the project holds it at the end */
  document: string;
}

/** The JSON answer of a chat, with the project it ran in (the caller's default project here). */
type ProjectChatAnswer = ChatAnswer & { project_id: string };

/** Runs the ten steps in a new chat of `agentId` and reads the document back from the project's store. */
export async function runDocumentWorkflow(system: BenchSystem, agentId: string, mode: WritingMode): Promise<WorkflowRun> {
  let sessionId: string | undefined;
  let projectId = "";
  const run = { mode, outputTokens: 0, inputTokens: 0, wallMs: 0, modelCalls: 0 };
  for (let step = 1; step <= workflowSteps; step += 1) {
    const started = performance.now();
    const answer = (await chatJson(system.gatewayUrl, { agent_id: agentId, message: `${mode} step ${step}`, ...(sessionId ? { session_id: sessionId } : {}) })) as ProjectChatAnswer;
    run.wallMs += performance.now() - started;
    run.outputTokens += answer.usage.completion_tokens;
    run.inputTokens += answer.usage.prompt_tokens;
    run.modelCalls += answer.iterations;
    sessionId = answer.session_id;
    projectId = answer.project_id;
    // the turn's tail (its session update after the answer) is not charged to the next step
    await sleep(settleMs);
  }
  const { content } = await system.files.read({ kind: "project", id: projectId }, documentPath(mode));
  return { ...run, document: new TextDecoder().decode(content) };
}
