/**
 * What the cluster fault tests do around a fault: load turns that overlap it, a probe that measures when
 * chats work again, and the checks of a turn after the fact (its events re-read from RUN_EVENTS, its
 * session's conversation).
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { RunEvent, SessionGetReply } from "@agent-orchestrator/shared/wire";
import type { Responder } from "../http-model.js";
import { withoutSystemNote } from "../system-note.js";
import { readSse } from "../sse.js";
import { postChat, streamChat } from "./chat-client.js";
import { loadMessage, loadResponder } from "./load-responder.js";


/** A probe chat: `ping`, answered at once, so its time is the system's, not the model's. */
export const probeMessage = "ping";

/** Load turns (`load <token>`, `latencyMs` per model call) and probe chats answered at once. */
export function clusterResponder(latencyMs: number): Responder {
  const load = loadResponder(latencyMs);
  return (request) => {
    const said = withoutSystemNote(String(request.messages.findLast((message) => message.role === "user")?.content ?? ""));
    return said === probeMessage ? { text: "pong" } : load(request);
  };
}

/**
 * What is wrong with a turn's events for the cluster tests, live or re-attached: not one run, `seq` not 0, 1, 2, …
 * with nothing missing or repeated, not `session` first and exactly one `done` last. A live client whose gateway
 * moved to another server gets what its subscription missed from RUN_EVENTS (docs/operations.md "What the cluster
 * test shows"). A tool call may fail (a tool-runner reconnecting to another server answers no one for a moment):
 * the model sees the error and the turn still ends with `done`, which the tests count and print rather than fail on.
 */
export function turnEventsProblem(token: string, events: RunEvent[]): string | undefined {
  const first = events[0];
  if (!first) return `${token}: no events`;
  const where = `${token} (session ${first.session_id})`;
  if (events.some((event) => event.session_id !== first.session_id || event.run_id !== first.run_id)) return `${where}: events of another run`;
  if (!events.every((event, index) => event.seq === index)) return `${where}: seq ${events.map((event) => event.seq).join(",")}`;
  const dones = events.filter((event) => event.type === "done").length;
  if (first.type !== "session" || events.at(-1)?.type !== "done" || dones !== 1) return `${where}: ${events.map((event) => event.type).join(" ")}`;
  return undefined;
}

/** Tool calls of these turns that failed, by error code. */
export function failedToolCalls(outcomes: TurnOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of outcomes.flatMap((outcome) => outcome.events)) {
    if (event.type === "tool_result" && !event.success) counts[event.error_code ?? "?"] = (counts[event.error_code ?? "?"] ?? 0) + 1;
  }
  return counts;
}

export interface TurnOutcome {
  token: string;
  sessionId: string | undefined;
  /** the events the client saw live */
  events: RunEvent[];
  /** what went wrong with the live stream, if anything */
  problem: string | undefined;
}

/** Starts `count` load turns at once; resolves when each has ended (or broken). */
export function startTurns(gatewayUrl: string, count: number): Promise<TurnOutcome[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const token = randomUUID().replace(/-/g, "");
      try {
        const turn = await streamChat(gatewayUrl, { agent_id: "idea-coach", message: loadMessage(token) });
        const events = await turn.done;
        const problem = turn.status === 200 ? turnEventsProblem(token, events) : `refused with ${turn.status}: ${JSON.stringify(turn.refused)}`;
        return { token, sessionId: events[0]?.session_id, events, problem };
      } catch (error) {
        return { token, sessionId: undefined, events: [], problem: `${token}: failed: ${String(error)}` };
      }
    }),
  );
}

/**
 * Sends a probe chat every 200 ms from now until one is answered; resolves with the time from `since`
 * to that answer. Several probes are in flight at once, so a probe stuck on a lost request does not
 * hide a later one that works.
 */
export async function firstAnsweredChat(gatewayUrl: string, since: number, timeoutMs = 60_000): Promise<number> {
  let answeredAt: number | undefined;
  const probes: Array<Promise<void>> = [];
  while (answeredAt === undefined) {
    if (Date.now() - since > timeoutMs) throw new Error(`no chat answered within ${timeoutMs} ms`);
    probes.push(
      postChat(gatewayUrl, { agent_id: "idea-coach", message: probeMessage }).then(
        (answer) => {
          if (answer.status === 200 && answer.body["response"] === "pong") answeredAt ??= Date.now();
        },
        () => undefined,
      ),
    );
    await sleep(200);
  }
  await Promise.all(probes);
  return answeredAt - since;
}

/** A finished turn's events re-read through the gateway (GET /api/sessions/:id/events), as a client that re-attaches. */
export async function reattach(gatewayUrl: string, sessionId: string): Promise<RunEvent[]> {
  // a replay that never ends is a failure to report, not a hang
  const response = await fetch(`${gatewayUrl}/api/sessions/${sessionId}/events`, { headers: { accept: "text/event-stream" }, signal: AbortSignal.timeout(20_000) });
  return (await readSse(response)).map((message) => RunEvent.parse(message.data));
}

/** What is wrong with a load turn's session after the fact: not completed, or the turn (its question, its answer) missing or there twice. */
export async function sessionProblem(gatewayUrl: string, sessionId: string, token: string, response: string | undefined): Promise<string | undefined> {
  const reply = SessionGetReply.parse(await (await fetch(`${gatewayUrl}/api/sessions/${sessionId}`)).json());
  if (!reply.success) return `${token}: session ${sessionId}: ${reply.error.code}`;
  const { session } = reply;
  const asked = session.messages.filter((message) => message.role === "user" && message.content === loadMessage(token)).length;
  const answered = session.messages.filter((message) => message.role === "assistant" && message.content === response).length;
  if (session.status !== "completed" || asked !== 1 || answered !== 1) {
    return `${token}: session ${sessionId} is ${session.status}, asked ${asked}×, answered ${answered}×`;
  }
  return undefined;
}

/** Every check of turns that ran through a fault: the live stream, the re-attached events, the session. */
export async function turnProblems(gatewayUrl: string, outcomes: TurnOutcome[]): Promise<{ live: string[]; reattached: string[]; sessions: string[] }> {
  const live = outcomes.flatMap((outcome) => (outcome.problem ? [outcome.problem] : []));
  const reattached: string[] = [];
  const sessions: string[] = [];
  // one client at a time, as clients come back
  for (const outcome of outcomes) {
    if (!outcome.sessionId) {
      reattached.push(`${outcome.token}: no session`);
      continue;
    }
    try {
      const events = await reattach(gatewayUrl, outcome.sessionId);
      const problem = turnEventsProblem(outcome.token, events);
      if (problem) reattached.push(problem);
    } catch (error) {
      reattached.push(`${outcome.token}: re-attach failed: ${String(error)}`);
    }
    const answer = outcome.events.findLast((event) => event.type === "done");
    // a session is read from any copy of the bucket, and a server catching up answers with an older
    // revision for a moment (nats-server 2.9 direct get), so the check is repeated until it holds
    const response = answer?.type === "done" ? answer.response : undefined;
    let sessionIssue = await sessionProblem(gatewayUrl, outcome.sessionId, outcome.token, response);
    for (const deadline = Date.now() + 15_000; sessionIssue && Date.now() < deadline; ) {
      await sleep(250);
      sessionIssue = await sessionProblem(gatewayUrl, outcome.sessionId, outcome.token, response);
    }
    if (sessionIssue) sessions.push(sessionIssue);
  }
  return { live, reattached, sessions };
}
