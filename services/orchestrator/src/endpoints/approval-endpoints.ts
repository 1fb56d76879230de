import type { Service } from "nats";
import { addJsonEndpoint, mapWithConcurrency, type AuditEntry, type Logger } from "@agent-orchestrator/shared/runtime";
import { ApprovalDecideRequest, ApprovalListRequest, roleOf, subjects, type ApprovalRecord, type ApprovalView, type ProjectRecord } from "@agent-orchestrator/shared/wire";
import { approvalAccess } from "../approvals/approval-access.js";
import type { ApprovalStore } from "../approvals/approval-store.js";
import { approvalView } from "../approvals/approval-view.js";
import { decideApproval } from "../approvals/decide-approval.js";
import type { ProjectStore } from "../projects/project-store.js";
import { visibleChat } from "../sessions/chat-access.js";
import type { SessionStore } from "../sessions/session-store.js";

export interface ApprovalEndpointDeps {
  approvals: ApprovalStore;
  sessions: SessionStore;
  projects: ProjectStore;
  subjectPrefix: string;
  /** publishes an audit record (docs/audit.md); never throws */
  audit: (entry: AuditEntry) => void;
  /** what follows a recorded decision: the paused turn queued to resume (docs/approvals.md "Resuming") */
  decided?: (record: ApprovalRecord) => Promise<void>;
}

/** A chat's few pending calls show their arguments as a tool_call event does; a listing across projects, less. */
const chatViewBytes = 64 * 1024;
const listingViewBytes = 8 * 1024;
/** The most pending calls a listing across projects returns (the oldest first): a reply is one NATS message. */
const maxListed = 100;
/** Projects whose pending calls are listed at once. */
const projectConcurrency = 4;

/**
 * `agent.approval.list` and `agent.approval.decide` (docs/approvals.md): a chat's pending calls to any member of its
 * project (a non-member is told the chat does not exist), every pending call the caller may decide across their
 * projects, and a member's decision, recorded once and audited.
 */
export function addApprovalEndpoints(service: Service, deps: ApprovalEndpointDeps, logger: Logger): void {
  const { approvals, subjectPrefix } = deps;

  addJsonEndpoint(service, "approval-list", subjectPrefix + subjects.approvalList, ApprovalListRequest, async ({ user, session_id }) => {
    if (session_id !== undefined) {
      const chat = await visibleChat(deps, session_id, user);
      const pending = await approvals.pendingOfSession(session_id);
      return { success: true, approvals: pending.map((record) => approvalView(record, approvalAccess(record, chat.project, user) === "decide", chatViewBytes)) };
    }
    return { success: true, approvals: await decidableByUser(deps, user) };
  }, logger);

  addJsonEndpoint(service, "approval-decide", subjectPrefix + subjects.approvalDecide, ApprovalDecideRequest, async (request) => {
    const chat = await visibleChat(deps, request.session_id, request.user);
    const record = await decideApproval({ approvals, audit: deps.audit }, chat.project, {
      user: request.user,
      sessionId: request.session_id,
      approvalId: request.approval_id,
      decision: request.decision,
      arguments: request.arguments,
      message: request.message,
      clientAddress: request.client_address,
    });
    await deps.decided?.(record);
    return { success: true, approval: approvalView(record, true, chatViewBytes) };
  }, logger);
}

/** Every pending call `user` may decide, in the projects they are a member of, oldest first. */
async function decidableByUser(deps: ApprovalEndpointDeps, user: string): Promise<ApprovalView[]> {
  const personal = await deps.projects.personalOf(user);
  const projects = [...(personal ? [personal] : []), ...(await deps.projects.memberProjects(user))].filter((project) => roleOf(project, user) !== "viewer");
  const perProject = await mapWithConcurrency(projects, projectConcurrency, async (project: ProjectRecord) =>
    (await deps.approvals.pendingOfProject(project.id)).filter((record) => approvalAccess(record, project, user) === "decide"),
  );
  return perProject
    .flat()
    .sort((a, b) => a.created_at.localeCompare(b.created_at))
    .slice(0, maxListed)
    .map((record) => approvalView(record, true, listingViewBytes));
}
