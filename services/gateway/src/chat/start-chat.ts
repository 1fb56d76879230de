import { randomUUID } from "node:crypto";
import { type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { serviceNames, type ChatRequestBody, type SignInVia } from "@agent-orchestrator/shared/wire";
import { auditChatStart } from "./chat-start-audit.js";
import type { GatewayContext } from "../gateway-context.js";
import { defaultProjectAlias } from "../access/project-access.js";
import { projectOfChatRecord } from "../migrations/session-event-project-migration.js";
import { countReplicas } from "../service-replicas.js";
import { callerName } from "../settings/caller-name.js";
import { resolveAttachments } from "../uploads/chat-attachments.js";
import type { UploadStaging } from "../uploads/upload-staging.js";
import { startRun, type NewRun, type StartedRun } from "./run-client.js";

/** What starting a chat needs besides the core: where inline attachments are staged, and the audit log that records a new chat. */
export interface ChatStartServices {
  uploads: UploadStaging;
  audit: AuditPublisher;
}

/** A turn a door asks for: what the caller sent, who they are and how they signed in (their display name is `user_name`'s default). */
export interface ChatStart {
  body: Pick<ChatRequestBody, "agent_id" | "message" | "session_id" | "project_id" | "attachments" | "branch">;
  owner: string;
  signIn: SignInVia | undefined;
  /** where the request came from, for the audit record of a new chat (MCP's tool call has none of its own) */
  clientAddress?: string | undefined;
  /**
   * what a tool call that needs a member's decision does (docs/approvals.md): `pause` (the default) pauses the turn;
   * `refuse`, for a door whose answer cannot wait (`/v1`, MCP), answers it as refused
   */
  approvalMode?: "pause" | "refuse";
}

/** A started chat turn: its run, and the project the chat belongs to. */
export interface StartedChat extends StartedRun {
  projectId: string;
}

/** Starts a chat turn: the use case the four doors (`/api/chat`, the WebSocket, `/v1`, MCP's `chat` tool) share. */
export type StartChat = (start: ChatStart) => Promise<StartedChat>;

/** A busy orchestrator may answer a ping late; a short wait would count it as absent. */
const orchestratorPingWaitMs = 500;

/**
 * The chat use case, wired once (app.ts): a turn for `owner` in a new session unless the body names one, in the
 * project the body names (absent or `default`: the owner's default project). Its attachments are checked, and
 * inline ones uploaded, before the turn is queued (uploads/chat-attachments.ts); the turn is queued for an
 * orchestrator and its events followed (run-client.ts) and counted (metrics.ts); a new chat's start is audited. The
 * chat's project comes with the started turn, for the doors that answer with it.
 */
export function chatStarter(context: GatewayContext, services: ChatStartServices): StartChat {
  return async ({ body, owner, signIn, clientAddress, approvalMode }) => {
    // a new chat's id is picked first: an inline file of a chat in a repository project goes into its scratch space
    const sessionId = body.session_id ?? randomUUID();
    const attachments = await resolveAttachments(context, services.uploads, owner, body, sessionId);
    const name = callerName(context.config, owner, signIn);
    const run: NewRun = {
      run_id: randomUUID(),
      session_id: sessionId,
      new_session: body.session_id === undefined,
      agent_id: body.agent_id,
      message: body.message,
      owner,
      project_id: body.project_id === defaultProjectAlias ? undefined : body.project_id,
      ...(body.branch === undefined ? {} : { branch: body.branch }),
      ...(attachments ? { attachments } : {}),
      ...(name ? { caller_name: name } : {}),
      ...(approvalMode === "refuse" ? { approval_mode: "refuse" as const } : {}),
    };
    const queued = startRun(
      {
        connection: context.connection,
        logger: context.logger,
        subjectPrefix: context.subjectPrefix,
        pickupTimeoutMs: context.config.RUN_PICKUP_TIMEOUT_MS,
        idleTimeoutMs: context.config.CHAT_IDLE_TIMEOUT_MS,
        countOrchestrators: () => countReplicas(context.connection, serviceNames.orchestrator, orchestratorPingWaitMs),
      },
      run,
    );
    const started = await (run.new_session
      ? auditChatStart(services, queued, { actor: owner, target: run.session_id, project_id: run.project_id, client_address: clientAddress })
      : queued);
    let projectId: string;
    try {
      projectId = await projectOfRun(context, started, owner);
    } catch (error) {
      // the turn goes on; this door stops listening to it
      started.close();
      throw error;
    }
    return { ...started, events: context.metrics.observe(started.events), projectId };
  };
}

/** The project a started chat belongs to, as its `session` event names it (an older orchestrator's does not: the migration asks the chat's record). */
async function projectOfRun(context: GatewayContext, run: StartedRun, user: string): Promise<string> {
  if (run.first.type === "session" && run.first.project_id !== undefined) return run.first.project_id;
  return projectOfChatRecord(context, run.first.session_id, user);
}
