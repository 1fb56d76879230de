import OpenAI from "openai";
import type { NatsConnection } from "nats";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import {
  AppError,
  addJsonEndpoint,
  addUsage,
  GetAgentReply,
  requestJson,
  RunStartRequest,
  serviceNames,
  SessionManifestReply,
  subjects,
  toErrorBody,
  type AgentDefinition,
  type Logger,
  type SessionRecord,
  type SessionStatus,
  type ToolContext,
} from "@agent-orchestrator/shared";
import { runAgentLoop } from "./agent-loop.js";
import { isModelConfigured, modelNotConfiguredMessage, type OrchestratorConfig } from "./config.js";
import { runCriticalActions } from "./critical-actions.js";
import { RunEventPublisher } from "./run-event-publisher.js";
import { SessionStore } from "./session-store.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { ToolClient } from "./tool-client.js";

export interface OrchestratorOptions {
  connection: NatsConnection;
  config: OrchestratorConfig;
  logger: Logger;
  /** prepended to every subject used, so tests sharing one NATS server stay apart */
  subjectPrefix?: string;
  /** KV bucket for sessions (tests use their own) */
  sessionBucket?: string;
}

export interface Orchestrator {
  stop(): Promise<void>;
}

/** A turn accepted by `agent.run.start`, ready to run once the reply has been sent. */
interface AcceptedTurn {
  request: RunStartRequest;
  session: SessionRecord;
  revision: number;
  agent: AgentDefinition;
}

/**
 * The orchestrator service: answers `agent.run.start` (accepting or refusing a turn) and runs accepted
 * turns, publishing their events. Any replica can run any turn: sessions live in JetStream KV.
 */
export async function startOrchestrator(options: OrchestratorOptions): Promise<Orchestrator> {
  const { connection, config, logger } = options;
  const prefix = options.subjectPrefix ?? "";
  const store = await SessionStore.open(connection, options.sessionBucket);
  const tools = new ToolClient(connection, config.TOOL_TIMEOUT_MS, prefix);
  const client = isModelConfigured(config)
    ? new OpenAI({
        apiKey: config.OPENAI_API_KEY ?? "not-needed",
        baseURL: config.OPENAI_BASE_URL ?? null,
        maxRetries: config.MODEL_MAX_RETRIES,
        timeout: config.MODEL_TIMEOUT_MS,
      })
    : undefined;
  const running = new Set<Promise<void>>();

  const service = await connection.services.add({
    name: serviceNames.orchestrator,
    version: "0.1.0",
    description: "Runs agent turns: the agentic loop over the model and the file tools",
  });

  addJsonEndpoint(
    service,
    "run-start",
    prefix + subjects.runStart,
    RunStartRequest,
    async (request) => {
      if (!client) throw new AppError("MODEL_NOT_CONFIGURED", modelNotConfiguredMessage);
      const turn = await acceptTurn(request);
      // the turn starts after this handler returns, so the acceptance is answered first
      setImmediate(() => {
        const work = runTurn(turn).finally(() => running.delete(work));
        running.add(work);
      });
      return { success: true, session_id: request.session_id, run_id: request.run_id };
    },
    logger,
  );

  async function acceptTurn(request: RunStartRequest): Promise<AcceptedTurn> {
    const agent = await getAgent(request.agent_id);
    let stored: { record: SessionRecord; revision: number } | undefined;
    if (request.new_session) {
      stored = await store.create({ id: request.session_id, agentId: agent.id, owner: request.owner });
    } else {
      stored = await store.get(request.session_id);
      if (!stored || stored.record.owner !== request.owner) throw new AppError("SESSION_NOT_FOUND", "Session not found");
      if (stored.record.agent_id !== agent.id) {
        throw new AppError("BAD_REQUEST", `This session belongs to agent ${stored.record.agent_id}`);
      }
      if (stored.record.status === "running") throw new AppError("SESSION_BUSY", "A turn is already running in this session");
    }
    const session: SessionRecord = { ...stored.record, status: "running", run_id: request.run_id };
    const revision = await store.update(session, stored.revision);
    return { request, session, revision, agent };
  }

  async function getAgent(agentId: string): Promise<AgentDefinition> {
    const reply = await requestJson(connection, prefix + subjects.registryAgentsGet, { agent_id: agentId }, GetAgentReply, {
      timeoutMs: config.REGISTRY_TIMEOUT_MS,
    });
    if (!reply.success) throw new AppError(reply.error.code, reply.error.message);
    return reply.agent;
  }

  async function updateManifest(turn: AcceptedTurn, status: SessionStatus): Promise<void> {
    const update = {
      session_id: turn.session.id,
      agent: turn.agent.id,
      bundle: turn.agent.bundleName,
      owner: turn.session.owner,
      status,
    };
    try {
      const reply = await requestJson(connection, prefix + subjects.sessionManifestUpdate, update, SessionManifestReply, {
        timeoutMs: config.TOOL_TIMEOUT_MS,
      });
      if (!reply.success) logger.warn({ sessionId: turn.session.id, error: reply.error }, "manifest update refused");
    } catch (error) {
      logger.warn({ sessionId: turn.session.id, err: error }, "manifest update failed");
    }
  }

  async function runTurn(turn: AcceptedTurn): Promise<void> {
    const { request, agent } = turn;
    const log = logger.child({ sessionId: request.session_id, runId: request.run_id });
    const events = new RunEventPublisher(connection, request.session_id, request.run_id, prefix);
    const controller = new AbortController();
    const deadline = setTimeout(
      () => controller.abort(new AppError("TURN_TIMEOUT", `The turn took longer than ${config.TURN_TIMEOUT_MS} ms and was stopped`)),
      config.TURN_TIMEOUT_MS,
    );
    const context: ToolContext = { session_id: request.session_id, bundle_path: agent.bundlePath };
    events.emit({ type: "session", agent_id: agent.id });
    await updateManifest(turn, "running");

    let status: SessionStatus;
    let session = turn.session;
    try {
      const start = await runCriticalActions(agent.criticalActions, (path) =>
        tools.call("read_file", `${request.run_id}:start:${path}`, context, { file_path: path }),
      );
      const userMessage: ChatCompletionMessageParam = { role: "user", content: request.message };
      const output = await runAgentLoop({
        client: client as OpenAI,
        model: config.LLM_MODEL,
        messages: [
          { role: "system", content: buildSystemPrompt(agent, start) },
          ...(session.messages as ChatCompletionMessageParam[]),
          userMessage,
        ],
        tools,
        context,
        runId: request.run_id,
        emit: (event) => events.emit(event),
        signal: controller.signal,
        limits: {
          maxIterations: config.MAX_ITERATIONS,
          toolConcurrency: config.TOOL_CONCURRENCY,
          toolResultMaxChars: config.TOOL_RESULT_MAX_CHARS,
          maxInvalidToolCalls: config.MAX_INVALID_TOOL_CALLS,
          modelTimeoutMs: config.MODEL_TIMEOUT_MS,
        },
      });
      status = "completed";
      session = {
        ...session,
        messages: [...session.messages, userMessage, ...output.added] as SessionRecord["messages"],
        usage: addUsage(session.usage, output.usage),
        turns: session.turns + 1,
      };
      await saveSession(session, status, turn.revision);
      events.finish({ type: "done", response: output.response, iterations: output.iterations, usage: output.usage });
      log.info({ iterations: output.iterations, usage: output.usage }, "turn completed");
    } catch (error) {
      status = AppError.is(error) && error.code === "CANCELLED" ? "cancelled" : "failed";
      if (AppError.is(error)) log.warn({ code: error.code, err: error.cause }, error.message);
      else log.error({ err: error }, "turn failed");
      await saveSession(session, status, turn.revision).catch((saveError: unknown) => log.error({ err: saveError }, "session not saved"));
      events.finish({ type: "error", error: toErrorBody(error) });
    } finally {
      clearTimeout(deadline);
    }
    await updateManifest(turn, status);
  }

  async function saveSession(session: SessionRecord, status: SessionStatus, revision: number): Promise<void> {
    await store.update({ ...session, status, run_id: null }, revision);
  }

  return {
    stop: async () => {
      await service.stop();
      await Promise.allSettled([...running]);
    },
  };
}
