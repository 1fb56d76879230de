import type { SessionHead, SessionSummary } from "@agent-orchestrator/shared/wire";

/** A chat as listed: its head's state and title, without where its conversation lies. */
export function toSummary(head: Omit<SessionHead, "batches">): SessionSummary {
  return {
    id: head.id,
    agent_id: head.agent_id,
    // every listed chat has a project: heads written before projects are moved into one at start
    project_id: head.project_id ?? "",
    owner: head.owner,
    ...(head.branch === undefined ? {} : { branch: head.branch }),
    status: head.status,
    run_id: head.run_id,
    run_started_at: head.run_started_at,
    last_run_id: head.last_run_id,
    turns: head.turns,
    usage: head.usage,
    title: head.title,
    created_at: head.created_at,
    updated_at: head.updated_at,
  };
}
