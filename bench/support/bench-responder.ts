import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { BenchBmadTree } from "./bench-bmad-tree.js";

/**
 * What the scripted model does, chosen by the first word of the latest user message, so every measure
 * (and every contender within a measure) gets the same model behaviour from one server:
 *
 * - `answer …`: text at once (1 model call);
 * - `read <path>`: read_file(path), then text (2 model calls, 1 tool call: "a session");
 * - `reread <n> <path>`: read_file(path) n times, one per model call, then text (measure 1);
 * - `preload <n>`: preload_workflow(workflow n), then text (measure 8, with the tool);
 * - `readall <n>`: read_file on each of workflow n's files, one per model call, then text (measure 8, without it).
 */
export interface BenchResponder {
  respond(request: ChatRequestBody): ScriptedTurn;
  /** the model's "thinking" time before every answer; 0 = a zero-latency model */
  delayMs: number;
  /** `performance.now()` when the latest request reached the model (for the timelines of measures 2 and 3) */
  lastRequestAt: number;
  /**
   * Tool results the model received that were failures. The scripted model answers either way, so a
   * broken tool path would otherwise look like a fast one; the run reports this count per measure.
   */
  toolFailures: number;
}

export const finalAnswer = "Done: the bench session is complete.";

export function createBenchResponder(tree: BenchBmadTree): BenchResponder {
  const responder: BenchResponder = {
    delayMs: 0,
    lastRequestAt: 0,
    toolFailures: 0,
    respond(request) {
      responder.lastRequestAt = performance.now();
      const last = request.messages[request.messages.length - 1];
      if (last?.role === "tool" && !isSuccess(last.content)) responder.toolFailures++;
      const turn = decide(request, tree);
      return responder.delayMs > 0 ? { ...turn, delayMs: responder.delayMs } : turn;
    },
  };
  return responder;
}

function decide(request: ChatRequestBody, tree: BenchBmadTree): ScriptedTurn {
  const lastUser = request.messages.findLastIndex((message) => message.role === "user");
  const said = withoutSystemNote(String(request.messages[lastUser]?.content ?? ""));
  const toolResults = request.messages.slice(lastUser + 1).filter((message) => message.role === "tool").length;
  const [verb = "", argument = "", extra = ""] = said.split(" ");
  const text = { text: finalAnswer };

  if (verb === "read") return toolResults === 0 ? call("read_file", { file_path: argument }) : text;
  if (verb === "reread") return toolResults < Number(argument) ? call("read_file", { file_path: extra }) : text;
  if (verb === "preload") return toolResults === 0 ? call("preload_workflow", { workflow_path: tree.workflowPath(Number(argument)) }) : text;
  if (verb === "readall") {
    const next = tree.workflowFiles(Number(argument))[toolResults];
    return next === undefined ? text : call("read_file", { file_path: next });
  }
  return text;
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ name, arguments: args }] });

function isSuccess(content: unknown): boolean {
  try {
    return (JSON.parse(String(content)) as { success?: unknown }).success === true;
  } catch {
    return false;
  }
}
