import { constants } from "node:fs";
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import path from "node:path";
import { parseJson, ToolResult, type Logger, type RunnerToolName } from "@agent-orchestrator/shared";
import { z } from "zod";
import { callRecordFolderName } from "./sandbox/protected-names.js";
import { errnoCode } from "./sandbox/sandbox-error.js";
import { prepareParentDirectories } from "./sandbox/write-path.js";
import { writeFileAtomically, type Sandbox } from "./sandbox/index.js";

/** Tools whose calls change the session folder: a retry must be answered from their record, never run again. */
export const recordedTools: ReadonlySet<RunnerToolName> = new Set(["save_output", "run_script"]);

/**
 * Outcomes a retry must get again rather than cause again: a success, and the failures that come after the
 * script ran (its exit code, its time limit, the quota). Other failures changed nothing and may be retried.
 */
const finalFailures = new Set(["SCRIPT_FAILED", "SCRIPT_TIMEOUT", "QUOTA_EXCEEDED"]);

/** One completed call: what it was (the dispatcher's fingerprint of tool, context and arguments) and its result. */
export const CallRecord = z.object({ fingerprint: z.string(), result: ToolResult });
export type CallRecord = z.infer<typeof CallRecord>;

// a result fits a NATS reply (4 MiB at most here); anything larger on disk was not written by us
const maxRecordBytes = 8 * 1024 * 1024;

/**
 * Completion records of side-effecting tool calls, one small file per call in the session folder
 * (`.tool-calls/<sha256(call_id)>.json`, on the output volume the replicas share), written atomically once
 * the call is done. A retried call that reaches another replica after the first one died is answered from
 * here. The folder is a protected name (no model read, write or listing), read-only inside the script
 * sandbox, and goes with the session folder. A call still running on a replica that dies has no record yet:
 * its retry runs again (README "Tool calls and retries").
 */
export class CallRecords {
  constructor(
    private readonly sandbox: Sandbox,
    private readonly logger: Logger,
  ) {}

  /** Whether `result` must be kept for retries. */
  static isFinal(result: ToolResult): boolean {
    return result.success || finalFailures.has(result.error.code);
  }

  /** The record of `callId` in the session, or undefined when there is none (or none that can be trusted). */
  async find(sessionId: string, callId: string): Promise<CallRecord | undefined> {
    let folder: string;
    try {
      folder = await this.sandbox.sessionFolder(sessionId, { create: false });
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return undefined;
      throw error;
    }
    const file = path.join(folder, callRecordFolderName, recordName(callId));
    let text: string;
    try {
      // O_NOFOLLOW: only a regular file we wrote counts, never a link planted in its place
      const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const stats = await handle.stat();
        if (!stats.isFile() || stats.size > maxRecordBytes) throw new Error("call record is not a small regular file");
        text = await handle.readFile("utf8");
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return undefined;
      this.logger.error({ err: error, session_id: sessionId, call_id: callId }, "call record unreadable; running the call");
      return undefined;
    }
    const parsed = parseJson(text);
    const record = parsed.ok ? CallRecord.safeParse(parsed.value) : undefined;
    if (record?.success) return record.data;
    this.logger.error({ session_id: sessionId, call_id: callId }, "call record invalid; running the call");
    return undefined;
  }

  /** Writes the record of a completed call, atomically: a replica reading it sees all of it or none. */
  async keep(sessionId: string, callId: string, record: CallRecord): Promise<void> {
    const folder = await this.sandbox.sessionFolder(sessionId);
    const records = await prepareParentDirectories(folder, [callRecordFolderName], { session_id: sessionId, reason: "call records" });
    await writeFileAtomically(records, recordName(callId), Buffer.from(JSON.stringify(record)));
  }
}

/** Call ids come from the orchestrator (`<run>:<attempt>:<call>`); hashed, any id makes a safe file name. */
function recordName(callId: string): string {
  return `${createHash("sha256").update(callId).digest("hex")}.json`;
}
