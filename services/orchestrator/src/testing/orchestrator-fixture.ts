/**
 * Test support: an orchestrator on its own subject prefix, with a fake registry and a fake tool-runner
 * that are real NATS responders, and a helper that queues a turn exactly like the gateway does.
 */
import { randomUUID } from "node:crypto";
import type { NatsConnection } from "nats";
import { createLogger, decodeJson, encodeJson, parseEnv } from "@agent-orchestrator/shared/runtime";
import {
  FilesPurgeRequest,
  isFinalEvent,
  RunEvent,
  subjects,
  type AgentDefinition,
  type FileSpaceRef,
  type ToolContext,
  type ToolResult,
} from "@agent-orchestrator/shared/wire";
import { orchestratorEnvSchema } from "../config.js";
import { startOrchestrator, type Orchestrator } from "../orchestrator-service.js";

export const testAgent: AgentDefinition = {
  id: "tester",
  name: "Tess",
  title: "Test Agent",
  icon: "🧪",
  description: "",
  bundleName: "tests",
  source: "bundle",
  persona: { role: "Tester", identity: "", communication_style: "", principles: "" },
  criticalActions: ["Load into memory {bundle-root}/config.yaml and set variables: user_name", "Greet {user_name}"],
  menu: [],
  bundlePath: "bmad/custom/bundles/tests",
  filePath: "bmad/custom/bundles/tests/agents/tester.md",
};

export interface FakeToolRunner {
  /** what it received, in order */
  calls: Array<{ subject: string; body: { call_id: string; context: ToolContext; arguments: Record<string, unknown> } }>;
  /** files it serves to read_file, by virtual path */
  files: Record<string, string>;
  /** what it answers to load_skill, by skill name (SKILL_NOT_FOUND for others) */
  skills: Record<string, ToolResult>;
  /** the spaces it was asked to purge (`project.files.purge`), in order */
  purges: FileSpaceRef[];
  /** how many files it reports for a purged space, by `<kind>:<id>` (0 for others) */
  spaceFiles: Record<string, number>;
}

/** A fake registry (serving `testAgent` and `options.agents`) and, optionally, a fake tool-runner, on one prefix. */
export function startFakeServices(
  connection: NatsConnection,
  prefix: string,
  options: { toolRunner: boolean; agents?: readonly AgentDefinition[] },
): FakeToolRunner {
  const runner: FakeToolRunner = { calls: [], files: { "{bundle-root}/config.yaml": "user_name: Ada\n" }, skills: {}, purges: [], spaceFiles: {} };
  const agents = new Map([testAgent, ...(options.agents ?? [])].map((agent) => [agent.id, agent]));
  connection.subscribe(prefix + subjects.registryAgentsGet, {
    callback: (_error, message) => {
      const { agent_id } = JSON.parse(new TextDecoder().decode(message.data)) as { agent_id: string };
      const agent = agents.get(agent_id);
      message.respond(encodeJson(agent ? { success: true, agent } : { success: false, error: { code: "AGENT_NOT_FOUND", message: "Agent not found" } }));
    },
  });
  if (!options.toolRunner) return runner;
  connection.subscribe(`${prefix}tool.*`, {
    callback: (_error, message) => {
      const body = JSON.parse(new TextDecoder().decode(message.data)) as FakeToolRunner["calls"][number]["body"];
      runner.calls.push({ subject: message.subject, body });
      const path = String(body.arguments["file_path"] ?? "");
      const skill = String(body.arguments["name"] ?? "");
      const result: ToolResult = message.subject.endsWith(".load_skill")
        ? (runner.skills[skill] ?? { success: false, error: { code: "SKILL_NOT_FOUND", message: `No skill named ${skill}` } })
        : path in runner.files
          ? { success: true, path, content: runner.files[path] }
          : { success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } };
      message.respond(encodeJson(result));
    },
  });
  // until the tool-runner's file store answers it, project deletion is checked against this responder
  connection.subscribe(prefix + subjects.files("purge"), {
    callback: (_error, message) => {
      const { space } = decodeJson(message.data, FilesPurgeRequest);
      runner.purges.push(space);
      message.respond(encodeJson({ success: true, files: runner.spaceFiles[`${space.kind}:${space.id}`] ?? 0 }));
    },
  });
  return runner;
}

export async function startTestOrchestrator(connection: NatsConnection, prefix: string, env: Record<string, string>): Promise<Orchestrator> {
  // JetStream reserves each stream's byte limit on disk, and the test files' orchestrators share one server
  const small = { EVENTS_MAX_BYTES: String(64 * 1024 ** 2), RUN_REQUESTS_MAX_BYTES: String(16 * 1024 ** 2), SESSIONS_BUCKET_MAX_BYTES: String(64 * 1024 ** 2) };
  const parsed = parseEnv(orchestratorEnvSchema, { MODEL_MAX_RETRIES: "0", ...small, ...env });
  if (!parsed.ok) throw new Error(parsed.message);
  return startOrchestrator({ connection, config: parsed.value, logger: createLogger("orchestrator-test", "silent"), subjectPrefix: prefix });
}

export interface TurnOptions {
  sessionId?: string;
  agentId?: string;
  owner?: string;
  /** the project a new chat goes into (the owner's default project when absent) */
  projectId?: string;
  /** the branch of the project's repository a new chat works on (docs/repositories.md) */
  branch?: string;
  /** the name the gateway knows the owner by: `user_name`'s default, and the author of the model's commits */
  callerName?: string;
  expiresAt?: number;
  onEvent?: (event: RunEvent) => void;
  timeoutMs?: number;
}

/** Queues a turn like the gateway does and collects its events until done or error. */
export async function runTestTurn(connection: NatsConnection, prefix: string, message: string, options: TurnOptions = {}) {
  const sessionId = options.sessionId ?? randomUUID();
  const runId = randomUUID();
  const subscription = connection.subscribe(prefix + subjects.runEvents(sessionId, runId));
  const request = {
    run_id: runId,
    session_id: sessionId,
    new_session: !options.sessionId,
    agent_id: options.agentId ?? testAgent.id,
    message,
    owner: options.owner ?? "ada",
    ...(options.projectId ? { project_id: options.projectId } : {}),
    ...(options.branch ? { branch: options.branch } : {}),
    ...(options.callerName ? { caller_name: options.callerName } : {}),
    expires_at: options.expiresAt ?? Date.now() + 60_000,
  };
  await connection.jetstream().publish(prefix + subjects.runRequest(sessionId), encodeJson(request), { msgID: runId });
  const events: RunEvent[] = [];
  const timer = setTimeout(() => subscription.unsubscribe(), options.timeoutMs ?? 10_000);
  for await (const raw of subscription) {
    const event = decodeJson(raw.data, RunEvent);
    events.push(event);
    options.onEvent?.(event);
    if (isFinalEvent(event)) break;
  }
  clearTimeout(timer);
  subscription.unsubscribe();
  return { events, final: events.at(-1), sessionId, runId };
}
