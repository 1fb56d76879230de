import { createHash } from "node:crypto";
import { parseJson, type Logger } from "@agent-orchestrator/shared/runtime";
import { ToolResult, type RunnerToolName } from "@agent-orchestrator/shared/wire";
import type { KV } from "nats";
import { z } from "zod";

/** Tools whose calls change a project or a chat: a retry must be answered from their record, never run again. */
export const recordedTools: ReadonlySet<RunnerToolName> = new Set(["save_output", "edit_file", "run_script", "run_command"]);

/**
 * Outcomes a retry must get again rather than cause again: a success, and the failures that come after the
 * script or command ran (its exit code, its time limit, another limit of its sandbox, the quota). Other failures
 * changed nothing and may be retried.
 */
const finalFailures = new Set(["SCRIPT_FAILED", "SCRIPT_TIMEOUT", "QUOTA_EXCEEDED", "COMMAND_FAILED", "COMMAND_TIMEOUT", "COMMAND_LIMIT_EXCEEDED"]);

/** One completed call: what it was (the dispatcher's fingerprint of tool, context and arguments) and its result. */
export const CallRecord = z.object({ fingerprint: z.string(), result: ToolResult });
export type CallRecord = z.infer<typeof CallRecord>;

/**
 * Completion records of side-effecting tool calls, one KV value per call (`<session_id>.<sha256(call_id)>`)
 * in a bucket every replica shares (`toolCallsBucket`: history 1, kept for a day, JS_REPLICAS copies). A
 * retried call that reaches another replica after the first one died is answered from here. Scripts never
 * reach it: nothing of NATS is inside their sandbox. A call still running on a replica that dies has no
 * record yet: its retry runs again (docs/file-tools.md "Tool calls and retries").
 */
export class CallRecords {
  constructor(
    private readonly kv: KV,
    private readonly logger: Logger,
  ) {}

  /** Whether `result` must be kept for retries. */
  static isFinal(result: ToolResult): boolean {
    return result.success || finalFailures.has(result.error.code);
  }

  /** The record of `callId` in the session, or undefined when there is none (or none that can be trusted). */
  async find(sessionId: string, callId: string): Promise<CallRecord | undefined> {
    const entry = await this.kv.get(recordKey(sessionId, callId));
    if (!entry || entry.operation !== "PUT") return undefined;
    const parsed = parseJson(entry.string());
    const record = parsed.ok ? CallRecord.safeParse(parsed.value) : undefined;
    if (record?.success) return record.data;
    this.logger.error({ session_id: sessionId, call_id: callId }, "call record invalid; running the call");
    return undefined;
  }

  /** Stores the record of a completed call: one value, so a replica reading it sees all of it or none. */
  async keep(sessionId: string, callId: string, record: CallRecord): Promise<void> {
    await this.kv.put(recordKey(sessionId, callId), JSON.stringify(record));
  }
}

/** Call ids come from the orchestrator (`<run>:<attempt>:<call>`); hashed, any id makes a valid key token. */
function recordKey(sessionId: string, callId: string): string {
  return `${sessionId}.${createHash("sha256").update(callId).digest("hex")}`;
}
