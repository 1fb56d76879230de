import {
  addJsonEndpoint,
  SessionFilesListRequest,
  SessionFilesReadRequest,
  SessionManifestUpdate,
  serviceNames,
  subjects,
  ToolCallRequest,
  RunnerToolName,
  type Logger,
  type SessionManifestReply,
} from "@agent-orchestrator/shared";
import type { NatsConnection } from "nats";
import type { ToolRunnerConfig } from "./config.js";
import { InFlightTracker } from "./in-flight-tracker.js";
import { observeToolCall } from "./observe-tool-call.js";
import { ManifestStore } from "./manifest/manifest-store.js";
import { createSandbox, type SandboxHooks } from "./sandbox/index.js";
import { startScriptRunner } from "./scripts/index.js";
import { listSessionFiles, readSessionFile } from "./session-files.js";
import { ToolDispatcher } from "./tool-dispatcher.js";
import { replyOverheadBytes } from "./tools/index.js";

/** What `startToolRunner` needs. */
export interface StartToolRunnerOptions {
  connection: NatsConnection;
  config: ToolRunnerConfig;
  logger: Logger;
  /**
   * Put before every subject served (`t1a2b` → `t1a2b.tool.read_file`), so instances started by tests on
   * one NATS server do not share queue groups. Defaults to `config.SUBJECT_PREFIX` (normally "").
   */
  subjectPrefix?: string;
  /** fault and race injection for tests */
  sandboxHooks?: SandboxHooks;
}

/** A running tool-runner. */
export interface ToolRunner {
  /** Stops taking requests, then waits for the ones in flight to be answered. The caller drains the connection. */
  stop(): Promise<void>;
}

const defaultMaxPayload = 1024 * 1024;

/**
 * Starts the tool-runner: one Services-framework service (`tool-runner`, queue group "q", so replicas share
 * the load) with an endpoint per tool on `tool.<name>`, plus `session.manifest.update` for the
 * orchestrator and `session.files.list|read` for the gateway. A bad message gets a BAD_REQUEST reply and
 * the service keeps serving.
 */
export async function startToolRunner(options: StartToolRunnerOptions): Promise<ToolRunner> {
  const { connection, config, logger } = options;
  const prefix = subjectPrefix(options.subjectPrefix ?? config.SUBJECT_PREFIX);
  const sandbox = await createSandbox({
    projectRoot: config.BMAD_ROOT,
    outputRoot: config.OUTPUT_ROOT,
    readMaxBytes: config.READ_MAX_BYTES,
    writeMaxBytes: config.WRITE_MAX_BYTES,
    listMaxEntries: config.LIST_MAX_ENTRIES,
    ...(options.sandboxHooks ? { hooks: options.sandboxHooks } : {}),
  });
  const manifests = new ManifestStore({ sandbox, logger, quota: { maxBytes: config.SESSION_MAX_BYTES, maxFiles: config.SESSION_MAX_FILES } });
  // SCRIPTS=on with no working sandbox throws here, so the process does not start
  const scripts = await startScriptRunner({ settings: config, sandbox, logger });
  // replies must fit the server's max_payload, which the connection learns at connect
  const replyBudget = () => (connection.info?.max_payload ?? defaultMaxPayload) - replyOverheadBytes;
  const dispatcher = new ToolDispatcher({
    deps: { sandbox, manifests, replyBudget, logger, scripts },
    concurrency: config.TOOL_CONCURRENCY,
    logger,
  });
  const inFlight = new InFlightTracker();

  const service = await connection.services.add({
    name: serviceNames.toolRunner,
    version: "0.1.0",
    description: "Sandboxed file tools for BMAD agents: read_file, save_output, list_files, preload_workflow, load_skill, run_script",
  });
  for (const tool of RunnerToolName.options) {
    addJsonEndpoint(service, tool, `${prefix}${subjects.tool(tool)}`, ToolCallRequest, (request) => inFlight.track(observeToolCall(tool, dispatcher.call(tool, request))), logger);
  }
  addJsonEndpoint(
    service,
    "session_manifest_update",
    `${prefix}${subjects.sessionManifestUpdate}`,
    SessionManifestUpdate,
    (update): Promise<SessionManifestReply> => inFlight.track(manifests.update(update).then((manifest) => ({ success: true as const, manifest }))),
    logger,
  );
  const filesDeps = { sandbox, manifests, replyBudget };
  addJsonEndpoint(service, "session_files_list", `${prefix}${subjects.sessionFilesList}`, SessionFilesListRequest, (request) =>
    inFlight.track(listSessionFiles(filesDeps, request)), logger);
  addJsonEndpoint(service, "session_files_read", `${prefix}${subjects.sessionFilesRead}`, SessionFilesReadRequest, (request) =>
    inFlight.track(readSessionFile(filesDeps, request)), logger);
  logger.info({ projectRoot: sandbox.projectRoot, prefix, id: service.info().id }, "tool-runner serving");

  return {
    async stop() {
      await service.stop();
      await inFlight.whenIdle();
      // replies are sent just after a handler settles: let them reach the connection before it drains
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function subjectPrefix(prefix: string): string {
  return prefix === "" || prefix.endsWith(".") ? prefix : `${prefix}.`;
}
