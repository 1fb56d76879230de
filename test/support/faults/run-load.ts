/**
 * Runs `count` load turns at once through a gateway, as SSE, and checks each one on its own: only its own
 * session and run in its events, `seq` 0, 1, 2, … with nothing missing, `session` first and `done` last,
 * its three tool calls each with a successful result, the streamed text equal to the answer, and the
 * answer quoting its own token. Reports each turn's time over the ideal (the model's latency alone).
 */
import { randomUUID } from "node:crypto";
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { streamChat } from "./chat-client.js";
import { loadAnswer, loadMessage, modelCallsPerLoadTurn } from "./load-responder.js";

export interface LoadReport {
  turns: number;
  /** one line per turn that went wrong */
  problems: string[];
  /** the ideal turn: the model's latency times its calls per turn */
  idealMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** every turn's time, fastest first */
  turnMs: number[];
  /** from the first request to the last answer */
  wallMs: number;
}

const expectedTools = ["save_output", "read_file", "list_files"];

export async function runLoad(gatewayUrl: string, count: number, latencyMs: number): Promise<LoadReport> {
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: count }, async () => {
      const token = randomUUID().replace(/-/g, "");
      const begin = performance.now();
      try {
        const turn = await streamChat(gatewayUrl, { agent_id: "idea-coach", message: loadMessage(token) });
        const events = await turn.done;
        const problem = turn.status === 200 ? checkTurn(token, events) : `refused with ${turn.status}: ${JSON.stringify(turn.refused)}`;
        return { ms: performance.now() - begin, problem, sessionId: events[0]?.session_id };
      } catch (error) {
        return { ms: performance.now() - begin, problem: `failed: ${String(error)}`, sessionId: undefined };
      }
    }),
  );
  const wallMs = performance.now() - started;
  const problems = outcomes.flatMap((outcome) => (outcome.problem ? [outcome.problem] : []));
  const sessions = outcomes.map((outcome) => outcome.sessionId).filter((id) => id !== undefined);
  if (new Set(sessions).size !== sessions.length) problems.push("two turns reported the same session");
  const sorted = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
  return {
    turns: count,
    problems,
    idealMs: latencyMs * modelCallsPerLoadTurn,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? 0,
    turnMs: sorted,
    wallMs,
  };
}

/** What is wrong with one turn's events, or undefined. */
export function checkTurn(token: string, events: RunEvent[]): string | undefined {
  const first = events[0];
  if (!first) return `${token}: no events`;
  const where = `${token} (session ${first.session_id})`;
  const foreign = events.filter((event) => event.session_id !== first.session_id || event.run_id !== first.run_id);
  if (foreign.length) return `${where}: ${foreign.length} event(s) of another session or run`;
  if (events.some((event, index) => event.seq !== index)) return `${where}: seq not 0..${events.length - 1}: ${events.map((event) => event.seq).join(",")}`;
  const last = events.at(-1);
  if (first.type !== "session" || last?.type !== "done") return `${where}: began with ${first.type} and ended with ${JSON.stringify(last)}`;
  const calls = events.flatMap((event) => (event.type === "tool_call" ? [event] : []));
  const results = events.flatMap((event) => (event.type === "tool_result" ? [event] : []));
  if (calls.map((call) => call.name).join() !== expectedTools.join()) return `${where}: tool calls ${calls.map((call) => call.name).join()}`;
  if (results.length !== 3 || results.some((result, index) => !result.success || result.call_id !== calls[index]?.call_id)) {
    return `${where}: tool results ${JSON.stringify(results)}`;
  }
  if (!JSON.stringify(calls[0]?.arguments).includes(token)) return `${where}: the save was not its own: ${JSON.stringify(calls[0]?.arguments)}`;
  const text = events.flatMap((event) => (event.type === "delta" ? [event.text] : [])).join("");
  if (last.response !== loadAnswer(token, token) || text !== last.response) return `${where}: answered ${JSON.stringify(last.response)}, streamed ${JSON.stringify(text)}`;
  return undefined;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
}
