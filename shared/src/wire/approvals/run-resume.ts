import { z } from "zod";
import { approvalIdSchema } from "./approval-record.js";

/**
 * On a turn request that resumes a turn paused for a tool call's decision (docs/approvals.md "Resuming"): the
 * approval it resumes from. An orchestrator queues it once the call was decided, expired or cancelled, on
 * `agent.run.request.<session>.<approval>.resume` (runResumeSubject), which only orchestrators may publish to, and
 * runs a request carrying it only from there. It carries the id only: the decision, the conversation and the paused
 * turn's figures are read from JetStream, and the chat's head must still name the paused run, so a repeated request
 * resumes nothing.
 */
export const RunResume = z.object({ approval_id: approvalIdSchema });
export type RunResume = z.infer<typeof RunResume>;

/** Where a resume is queued: one token longer than a subagent's request, ending in `resume`. */
export const runResumeSubject = (sessionId: string, approvalId: string): string => `agent.run.request.${sessionId}.${approvalId}.resume`;

/** Whether a work-queue message for `sessionId` came on a resume subject of `approvalId` (after the subject prefix). */
export const isResumeSubject = (subject: string, subjectPrefix: string, sessionId: string, approvalId: string): boolean =>
  subject === subjectPrefix + runResumeSubject(sessionId, approvalId);
