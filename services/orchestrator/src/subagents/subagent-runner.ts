import { randomUUID } from "node:crypto";
import type { NatsConnection, Subscription } from "nats";
import { decodeJson, encodeJson, endSubscription, queueRunRequest, traceHeadersOption, type Logger } from "@agent-orchestrator/shared/runtime";
import {
  addUsage,
  isFinalEvent,
  maxUserMessageChars,
  RunEvent,
  subjects,
  zeroUsage,
  type RunCancel,
  type RunEventBody,
  type RunStartRequest,
  type ToolArgs,
  type ToolResult,
  type Usage,
} from "@agent-orchestrator/shared/wire";
import type { SubagentCaller } from "../loop/agent-loop.js";
import type { OrchestratorConfig } from "../config.js";
import { ConcurrencyGate } from "./concurrency-gate.js";

export interface SubagentDeps {
  connection: NatsConnection;
  config: OrchestratorConfig;
  logger: Logger;
  subjectPrefix: string;
  /** adds a run-queue slot while a child runs (RunQueue.lendSlot) */
  lendSlot?: () => () => void;
}

/** The turn that starts subagents. */
export interface ParentTurn {
  sessionId: string;
  runId: string;
  owner: string;
  /** the name the gateway knows the owner by (docs/settings.md), passed to every subagent */
  callerName?: string | undefined;
  /** the chat's project: a subagent's tools work in its root chat's project */
  projectId: string;
  /** the branch of the project's repository the chat works on when a person named one: a subagent's too */
  branch?: string | undefined;
  /** the agent a subagent runs as when the call names none */
  agentId: string;
  /** 0 for a user's turn, 1 for a subagent, … */
  depth: number;
  /** epoch ms when this turn is stopped; no child may run longer */
  deadline: number;
  /** the user's turn at the top of the family (a subagent's parent's); a user's turn is its own */
  rootRunId?: string;
  /** publishes on this turn's run (its publisher numbers the events) */
  emit: (event: RunEventBody) => void;
}

type FinalEvent = Extract<RunEvent, { type: "done" | "error" }>;

/** A child shorter than this is not worth starting: it would be stopped before its first answer. */
const minimumChildMs = 1_000;
/** How long a stopped child is listened to for what it spent; one that runs stops within milliseconds of its cancel. */
const stopReportMs = 2_000;

/**
 * The turn's subagents, or none when the turn is at the depth limit (then the model is not offered
 * run_subagent at all: no grandchildren by default).
 */
export function subagentsForTurn(deps: SubagentDeps, parent: ParentTurn): SubagentRunner | undefined {
  return parent.depth < deps.config.SUBAGENT_MAX_DEPTH ? new SubagentRunner(deps, parent) : undefined;
}

/**
 * Runs the run_subagent calls of one turn. Each child is a turn of its own, queued in RUN_REQUESTS so any
 * orchestrator replica can run it (and a dead one's is redelivered); this waits for its final event,
 * relaying its deltas and tool events onto the parent's run under the call's id. Limits: a count per
 * turn, a number at a time, and a time that never outlasts the parent. A cancelled parent cancels its
 * children (and a child still queued then finds its family ended when it is taken: family-guard.ts). The
 * children's tokens are summed for the parent's usage, a failed or stopped child's too: its `error` event
 * carries what it spent, and a stopped one is listened to a little longer for it (`settled`).
 */
export class SubagentRunner implements SubagentCaller {
  private started = 0;
  private readonly gate: ConcurrencyGate;
  private readonly reported: Array<{ call_id: string; usage: Usage }> = [];
  /** stopped children not yet heard from (at most `stopReportMs` each) */
  private readonly reporting = new Set<Promise<void>>();

  constructor(
    private readonly deps: SubagentDeps,
    private readonly parent: ParentTurn,
  ) {
    this.gate = new ConcurrencyGate(deps.config.SUBAGENT_CONCURRENCY);
  }

  /** the tokens of every child that reported them, finished or failed; complete once `settled` resolves */
  get usage(): Usage {
    return this.reported.reduce((sum, child) => addUsage(sum, child.usage), zeroUsage());
  }

  /** each child's tokens, by its run_subagent call id, in the order they ended */
  get usageBySubagent(): ReadonlyArray<{ call_id: string; usage: Usage }> {
    return this.reported;
  }

  /** Resolves once every stopped child has reported what it spent, or has had `stopReportMs` to do so. */
  async settled(): Promise<void> {
    while (this.reporting.size > 0) await Promise.allSettled([...this.reporting]);
  }

  async call(callId: string, args: ToolArgs["run_subagent"], signal: AbortSignal): Promise<ToolResult> {
    const { config } = this.deps;
    // counted before waiting for a place, so the calls beyond the cap are the last ones of the answer
    if (++this.started > config.SUBAGENT_MAX_PER_TURN) {
      return limit(`This turn already started ${config.SUBAGENT_MAX_PER_TURN} subagents, the most one turn may; this one was not started. Do the task yourself.`);
    }
    if (args.prompt.trim() === "" || args.prompt.length > maxUserMessageChars) {
      return { success: false, error: { code: "INVALID_TOOL_CALL", message: `The prompt must hold the task, in at most ${maxUserMessageChars} characters.` } };
    }
    const leave = await this.gate.enter(signal);
    try {
      return await this.runChild(callId, args, signal);
    } finally {
      leave();
    }
  }

  private async runChild(callId: string, args: ToolArgs["run_subagent"], signal: AbortSignal): Promise<ToolResult> {
    const { connection, config, subjectPrefix } = this.deps;
    const { parent } = this;
    // a place in the gate can pass to this call in the same moment its turn is cancelled: queue nothing then
    if (signal.aborted) throw signal.reason;
    const timeoutMs = Math.min(config.SUBAGENT_TIMEOUT_MS, parent.deadline - Date.now());
    if (timeoutMs < minimumChildMs) return limit("Too little time is left in this turn to start a subagent.");
    const runId = randomUUID();
    const request: RunStartRequest = {
      run_id: runId,
      session_id: parent.sessionId,
      new_session: false,
      agent_id: args.agent ?? parent.agentId,
      message: args.prompt,
      owner: parent.owner,
      project_id: parent.projectId,
      ...(parent.branch === undefined ? {} : { branch: parent.branch }),
      // the child stops at this time too, so it never outlives the wait
      expires_at: Date.now() + timeoutMs,
      parent: { session_id: parent.sessionId, run_id: parent.runId, call_id: callId, depth: parent.depth + 1, root_run_id: parent.rootRunId ?? parent.runId },
      ...(args.skill ? { skill: args.skill } : {}),
      ...(parent.callerName ? { caller_name: parent.callerName } : {}),
    };
    const log = this.deps.logger.child({ sessionId: parent.sessionId, runId: parent.runId, childRunId: runId, callId });
    // subscribed before the request is queued, so no event of the child is missed
    const subscription = connection.subscribe(subjectPrefix + subjects.runChildEvents(parent.sessionId, runId));
    let relaying = true;
    const final = this.read(subscription, callId, () => relaying);
    const giveBack = this.deps.lendSlot?.();
    try {
      try {
        // through the same retries as a user's turn, so a leader election does not fail a child a top-level turn survives
        await queueRunRequest(connection, subjectPrefix + subjects.runChildRequest(parent.sessionId, parent.runId), encodeJson(request), {
          msgID: runId,
          signal,
          budgetMs: timeoutMs,
          ...traceHeadersOption(),
        });
      } catch (error) {
        endSubscription(subscription);
        if (signal.aborted) throw signal.reason;
        log.warn({ err: error }, "subagent not queued");
        return { success: false, error: { code: "SERVICE_UNAVAILABLE", message: "The subagent could not be queued." } };
      }
      const outcome = await this.wait(final, timeoutMs, signal).catch((error: unknown) => {
        relaying = false;
        this.stop(runId, callId, final, subscription);
        throw error;
      });
      if (outcome === undefined) {
        relaying = false;
        this.stop(runId, callId, final, subscription);
        log.warn({ timeoutMs }, "subagent timed out");
        return { success: false, error: { code: "SERVICE_TIMEOUT", message: `The subagent did not finish within ${timeoutMs} ms and was stopped.` } };
      }
      endSubscription(subscription);
      this.record(callId, outcome);
      if (outcome.type === "error") return { success: false, error: outcome.error };
      return { success: true, response: outcome.response, iterations: outcome.iterations, usage: outcome.usage };
    } finally {
      giveBack?.();
    }
  }

  /**
   * Reads the child's events until its final one, relaying its deltas and tool events onto the parent's run
   * while `relaying()` says so. Resolves undefined if the subscription closes first.
   */
  private async read(subscription: Subscription, callId: string, relaying: () => boolean): Promise<FinalEvent | undefined> {
    try {
      for await (const message of subscription) {
        let event: RunEvent;
        try {
          event = decodeJson(message.data, RunEvent);
        } catch (error) {
          this.deps.logger.warn({ err: error, callId }, "invalid subagent event dropped");
          continue;
        }
        if (isFinalEvent(event)) return event as FinalEvent;
        if (relaying() && (event.type === "delta" || event.type === "tool_call" || event.type === "tool_result")) {
          // the parent's publisher gives it the parent's run, session and seq; a grandchild's event keeps this call's id
          const { session_id: _session, run_id: _run, seq: _seq, ...body } = event;
          this.parent.emit({ ...body, parent_call_id: callId });
        }
      }
    } catch (error) {
      this.deps.logger.warn({ err: error, callId }, "the subagent's events could not be read");
    }
    return undefined;
  }

  /** The child's final event; undefined when the time is up; rejects with the signal's reason when the parent is stopped. */
  private wait(final: Promise<FinalEvent | undefined>, timeoutMs: number, signal: AbortSignal): Promise<FinalEvent | undefined> {
    return new Promise<FinalEvent | undefined>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve(undefined);
      }, timeoutMs);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      void final.then((event) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(event);
      });
    });
  }

  /**
   * Stops a child the parent no longer waits for (the parent was stopped, or the child's time is up), and
   * listens for its final event a little longer: it carries what the child spent, which is the parent's too.
   */
  private stop(runId: string, callId: string, final: Promise<FinalEvent | undefined>, subscription: Subscription): void {
    this.cancelChild(runId);
    const giveUp = setTimeout(() => endSubscription(subscription), stopReportMs);
    const report = final.then((event) => {
      clearTimeout(giveUp);
      endSubscription(subscription);
      if (event) this.record(callId, event);
    });
    this.reporting.add(report);
    void report.finally(() => this.reporting.delete(report));
  }

  private record(callId: string, event: FinalEvent): void {
    if (event.usage) this.reported.push({ call_id: callId, usage: event.usage });
  }

  /** Every orchestrator hears it; the one running the child stops it. */
  private cancelChild(runId: string): void {
    const cancel: RunCancel = { session_id: this.parent.sessionId, run_id: runId };
    this.deps.connection.publish(this.deps.subjectPrefix + subjects.runCancel(this.parent.sessionId), encodeJson(cancel), traceHeadersOption());
  }
}

const limit = (message: string): ToolResult => ({ success: false, error: { code: "SUBAGENT_LIMIT", message } });
