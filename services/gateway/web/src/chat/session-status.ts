import type { SessionSummary } from "@agent-orchestrator/shared/wire";

const labels: Record<SessionSummary["status"], string> = {
  idle: "idle",
  running: "running",
  completed: "done",
  failed: "failed",
  cancelled: "stopped",
  awaiting_approval: "needs approval",
};

/** A chat's status in the words the page shows (an unknown one as sent). */
export const sessionStatusLabel = (status: string): string => (Object.hasOwn(labels, status) ? labels[status as SessionSummary["status"]] : status);
