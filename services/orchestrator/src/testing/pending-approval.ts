import { randomUUID } from "node:crypto";
import type { ApprovalRecord } from "@agent-orchestrator/shared/wire";

/** A pending call of chat `s1` in project `p1`, asked by erin, waiting a minute; `change` sets any field. */
export function pendingRecord(change: Partial<ApprovalRecord> = {}): ApprovalRecord {
  const created = new Date();
  return {
    approval_id: randomUUID(),
    session_id: "s1",
    project_id: "p1",
    run_id: "r1",
    agent_id: "bmm/dev",
    call_id: "call_1",
    tool: "save_output",
    arguments: { file_path: "{project-root}/docs/a.md", content: "hello" },
    reason: "save_output is set to ask in this project",
    requester: "erin",
    deciders: "requester",
    created_at: created.toISOString(),
    expires_at: new Date(created.getTime() + 60_000).toISOString(),
    status: "pending",
    ...change,
  };
}
