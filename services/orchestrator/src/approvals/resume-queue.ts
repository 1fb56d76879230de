import type { NatsConnection } from "nats";
import { encodeJson, queueRunRequest } from "@agent-orchestrator/shared/runtime";
import { runResumeSubject, type ApprovalRecord, type RunStartRequest } from "@agent-orchestrator/shared/wire";

/** A queued resume waits at most this long for an orchestrator (the work queue's own limit is an hour). */
const resumeWaitMs = 3_600_000;

/**
 * Queues the resume of the turn `record` paused (docs/approvals.md "Resuming") into `RUN_REQUESTS`, so any
 * orchestrator replica takes it. Its run id, and so its message id, is the approval's: a resume queued twice within
 * the stream's duplicate window is stored once, and one queued again later finds the chat no longer waiting for it.
 * Its message is never shown nor stored: the resumed turn goes on from the chat's conversation.
 */
export function queueResume(connection: NatsConnection, subjectPrefix: string, record: ApprovalRecord): Promise<void> {
  const request: RunStartRequest = {
    run_id: record.approval_id,
    session_id: record.session_id,
    new_session: false,
    agent_id: record.agent_id,
    message: `(resumed after the decision on ${record.tool})`,
    owner: record.requester,
    project_id: record.project_id,
    expires_at: Date.now() + resumeWaitMs,
    ...(record.turn?.caller_name ? { caller_name: record.turn.caller_name } : {}),
    resume: { approval_id: record.approval_id },
  };
  return queueRunRequest(connection, subjectPrefix + runResumeSubject(record.session_id, record.approval_id), encodeJson(request), { msgID: request.run_id });
}
