import type { ToolName } from "@agent-orchestrator/shared/wire";
import type { OrchestratorConfig } from "../config.js";

/** What the orchestrator knows of how long a tool call may take (docs/commands.md "How long the orchestrator waits"). */
export interface ToolWaits {
  /** TOOL_TIMEOUT_MS: a call, or what surrounds a command or a script (a checkout, keeping what it changed) */
  toolTimeoutMs: number;
  /** COMMAND_TIMEOUT_MAX_MS: the longest a command runs, whatever it asks */
  commandTimeoutMaxMs: number;
  /** SCRIPT_TIMEOUT_MS: how long a script runs */
  scriptTimeoutMs: number;
}

export function toolWaitsOf(config: Pick<OrchestratorConfig, "TOOL_TIMEOUT_MS" | "COMMAND_TIMEOUT_MAX_MS" | "SCRIPT_TIMEOUT_MS">): ToolWaits {
  return { toolTimeoutMs: config.TOOL_TIMEOUT_MS, commandTimeoutMaxMs: config.COMMAND_TIMEOUT_MAX_MS, scriptTimeoutMs: config.SCRIPT_TIMEOUT_MS };
}

/**
 * How long to wait for one call's answer: a command or a script stops at its own limit, so the caller waits that
 * limit plus TOOL_TIMEOUT_MS and is answered COMMAND_TIMEOUT rather than cutting the call itself. A command's limit
 * is its `timeout_ms`, cut to the maximum as the tool-runner cuts it; without one the tool-runner's default, which is
 * never above the maximum, so the maximum is waited for.
 */
export function toolWaitMs(name: ToolName, args: unknown, waits: ToolWaits): number {
  if (name === "run_script") return waits.scriptTimeoutMs + waits.toolTimeoutMs;
  if (name !== "run_command") return waits.toolTimeoutMs;
  const asked = typeof args === "object" && args !== null ? (args as { timeout_ms?: unknown }).timeout_ms : undefined;
  const limit = typeof asked === "number" && Number.isFinite(asked) && asked > 0 ? Math.min(asked, waits.commandTimeoutMaxMs) : waits.commandTimeoutMaxMs;
  return limit + waits.toolTimeoutMs;
}
