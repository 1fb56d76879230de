import { createHash } from "node:crypto";
import type { KV } from "nats";
import { AppError, firstIssue, toErrorBody, type Logger } from "@agent-orchestrator/shared/runtime";
import { toolCatalog, type ErrorCode, type ToolCallRequest, type RunnerToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import { CallRecords, recordedTools } from "./call-records.js";
import { IdempotencyCache, type IdempotencyCacheOptions } from "./idempotency-cache.js";
import { InFlightTracker } from "./in-flight-tracker.js";
import { toolHandlers, type ToolDependencies, type ToolHandler } from "./tools/index.js";

/** What a dispatcher needs. */
export interface ToolDispatcherOptions {
  deps: ToolDependencies;
  /** the JetStream bucket of completion records (call-records.ts) */
  records: KV;
  /** calls in flight at most (TOOL_CONCURRENCY); above it a call is answered BUSY at once */
  concurrency: number;
  logger: Logger;
  cache?: IdempotencyCacheOptions;
}

const defaultCache: IdempotencyCacheOptions = { maxEntries: 10_000, maxBytes: 64 * 1024 * 1024 };

/**
 * Runs tool calls: argument validation with the catalog's zod schema, the concurrency cap, and
 * idempotency by `call_id` (a retried call shares the running call or gets the stored result; it is never
 * executed twice). In this process the cache answers retries; across replicas the completion records in the
 * session folder do, for the tools that change it. Always answers with a ToolResult; an error becomes
 * `{success:false, error}`.
 */
export class ToolDispatcher {
  private readonly running = new InFlightTracker();
  private readonly cache: IdempotencyCache;
  private readonly records: CallRecords;

  constructor(private readonly options: ToolDispatcherOptions) {
    this.cache = new IdempotencyCache(options.cache ?? defaultCache);
    this.records = new CallRecords(options.records, options.logger);
  }

  /** Runs one call, or answers it from a retry's original; never rejects. */
  call(tool: RunnerToolName, request: ToolCallRequest): Promise<ToolResult> {
    const fingerprint = createHash("sha256").update(JSON.stringify([tool, request.context, request.arguments])).digest("hex");
    return this.cache.once(request.call_id, fingerprint, () => {
      if (this.running.size >= this.options.concurrency) {
        this.options.logger.warn({ tool, call_id: request.call_id, in_flight: this.running.size }, "tool call refused: busy");
        return Promise.resolve(failure("BUSY", "The tool runner is busy; retry shortly"));
      }
      return this.running.track(recordedTools.has(tool) ? this.executeOnce(tool, request, fingerprint) : this.execute(tool, request));
    });
  }

  /** A side-effecting call: answered from its record when another replica completed it, else run and recorded. */
  private async executeOnce(tool: RunnerToolName, request: ToolCallRequest, fingerprint: string): Promise<ToolResult> {
    const { logger } = this.options;
    const log = { tool, call_id: request.call_id, session_id: request.context.session_id };
    try {
      const record = await this.records.find(request.context.session_id, request.call_id);
      if (record) {
        logger.info(log, "tool call answered from its record");
        return record.fingerprint === fingerprint ? record.result : failure("BAD_REQUEST", `call_id ${request.call_id} was already used for a different call`);
      }
    } catch (error) {
      logger.warn({ ...log, err: error }, "call record lookup failed");
      return { success: false, error: toErrorBody(error) };
    }
    const result = await this.execute(tool, request);
    if (CallRecords.isFinal(result)) {
      // the call is done either way; a lost record only loses the cross-replica answer to a retry
      await this.records.keep(request.context.session_id, request.call_id, { fingerprint, result }).catch((error: unknown) => {
        logger.warn({ ...log, err: error }, "call record not written");
      });
    }
    return result;
  }

  private async execute(tool: RunnerToolName, request: ToolCallRequest): Promise<ToolResult> {
    const { logger } = this.options;
    const log = { tool, call_id: request.call_id, session_id: request.context.session_id };
    const parsed = toolCatalog[tool].args.safeParse(request.arguments);
    if (!parsed.success) {
      logger.info({ ...log, issues: parsed.error.issues }, "tool call with invalid arguments");
      return failure("VALIDATION_ERROR", `Invalid arguments for ${tool}: ${firstIssue(parsed.error, "(arguments)")}`);
    }
    try {
      const handler = toolHandlers[tool] as ToolHandler<RunnerToolName>;
      const result = await handler(parsed.data as never, request.context, this.options.deps, { call_id: request.call_id });
      logger.debug(log, "tool call done");
      return result;
    } catch (error) {
      // host paths live in `detail`: logged here with the session id, never sent to the model
      if (AppError.is(error)) logger.warn({ ...log, code: error.code, detail: error.detail }, error.message);
      else logger.error({ ...log, err: error }, "tool call failed");
      return { success: false, error: toErrorBody(error) };
    }
  }
}

function failure(code: ErrorCode, message: string): ToolResult {
  return { success: false, error: { code, message } };
}
