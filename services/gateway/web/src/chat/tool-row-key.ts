import type { RunEvent } from "@agent-orchestrator/shared/wire";

type ToolEvent = Extract<RunEvent, { type: "tool_call" | "tool_result" }>;

/**
 * Which row a tool event belongs to. A subagent's calls come on its parent's run under the parent's
 * run_subagent call id, and its model picks its own call ids, which may repeat the parent's: so a nested
 * call is keyed by both.
 */
export const toolRowKey = (event: Pick<ToolEvent, "call_id" | "parent_call_id">): string =>
  event.parent_call_id === undefined ? event.call_id : `${event.parent_call_id}/${event.call_id}`;
