import { addJsonEndpoint, AuditPublisher, type Logger } from "@agent-orchestrator/shared/runtime";
import {
  BranchArchiveRequest,
  BranchFileRequest,
  BranchFilesRequest,
  FilesDeleteRequest,
  FilesListRequest,
  FilesPurgeRequest,
  FilesReadRequest,
  FilesRestoreRequest,
  FilesRevisionsRequest,
  FilesWriteRequest,
  FilesImportRequest,
  FilesStatRequest,
  FilesUploadRequest,
  BranchCommitsRequest,
  ChatDiscardRequest,
  ChatFilesStatRequest,
  ChatTreeRequest,
  RepositoryCloneRequest,
  RepositoryImportRequest,
  RepositoryPushRequest,
  RepositoryRequest,
  InstalledFileReadRequest,
  InstalledFilesListRequest,
  SourcePutRequest,
  SourceRequest,
  type FileSpaceRef,
  jetStreamNames,
  serviceNames,
  subjects,
  ToolCallRequest,
  RunnerToolName,
} from "@agent-orchestrator/shared/wire";
import type { NatsConnection } from "nats";
import type { ToolRunnerConfig } from "./config.js";
import { InFlightTracker } from "./in-flight-tracker.js";
import { observeToolCall } from "./observe-tool-call.js";
import { createSandbox, type SandboxHooks } from "./sandbox/index.js";
import { startCommandRunner } from "./commands/index.js";
import { startScriptRunner } from "./scripts/index.js";
import { InstallFiles } from "./install-files.js";
import { ProjectFiles } from "./project-files.js";
import { auditAgentWrites } from "./agent-write-audit.js";
import { FileStore } from "./store/file-store.js";
import { BranchRequests, Repositories, RepositoryBucket, RepositoryRequests, WorkingTrees, repositorySettingsOf } from "./repository/index.js";
import { moveLegacySessions } from "./migrations/output-root-migration.js";
import { StagedUploads } from "./store/staged-uploads.js";
import { DocumentConverter } from "./convert/index.js";
import { importArchive } from "./uploads/archive-import.js";
import { uploadFile } from "./uploads/file-upload.js";
import { removeSource, sourceInfo } from "./uploads/source-info.js";
import { putSource } from "./uploads/source-upload.js";
import { ToolDispatcher } from "./tool-dispatcher.js";
import { TransitBodies, addGitEndpoints, gitServiceTimeoutMs } from "./git-http/index.js";
import { replyOverheadBytes } from "./reply-budget.js";
import { BranchArchive, BranchFiles, statChatFiles, TreeFiles } from "./view/index.js";
import type { z } from "zod";

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
// a retry comes within a turn's tool timeout; a day covers any turn with room to spare
const callRecordsMaxAgeMs = 24 * 3_600_000;

/**
 * Starts the tool-runner: one Services-framework service (`tool-runner`, queue group "q", so replicas share
 * the load) with an endpoint per tool on `tool.<name>`, plus `project.files.*` for the gateway and the
 * orchestrator. Its only state is in JetStream (the file store, the call records) and a cache by sha256, so
 * replicas need no shared volume. A bad message gets a BAD_REQUEST reply and the service keeps serving.
 */
export async function startToolRunner(options: StartToolRunnerOptions): Promise<ToolRunner> {
  const { connection, config, logger } = options;
  const prefix = subjectPrefix(options.subjectPrefix ?? config.SUBJECT_PREFIX);
  const audit = new AuditPublisher({ connection, subjectPrefix: prefix, logger });
  const agentWrites = auditAgentWrites(audit);
  const files = await FileStore.forConfig(connection, prefix, config, agentWrites);
  await moveLegacySessions(files, config.OUTPUT_ROOT, logger);
  const repositorySettings = repositorySettingsOf(config);
  const repositoryBucket = await RepositoryBucket.open(connection.jetstream(), { subjectPrefix: prefix, replicas: config.JS_REPLICAS, flush: () => connection.flush() });
  const repositories = await Repositories.open(repositoryBucket, repositorySettings, files, logger);
  const trees = new WorkingTrees(repositories, repositorySettings, logger);
  const sandbox = await createSandbox({
    projectRoot: config.BMAD_ROOT,
    files,
    trees,
    onTreeWritten: agentWrites,
    readMaxBytes: config.READ_MAX_BYTES,
    writeMaxBytes: config.WRITE_MAX_BYTES,
    listMaxEntries: config.LIST_MAX_ENTRIES,
    ...(options.sandboxHooks ? { hooks: options.sandboxHooks } : {}),
  });
  // SCRIPTS=on with no working sandbox throws here, so the process does not start
  const scripts = await startScriptRunner({ settings: config, sandbox, files, logger });
  // and COMMANDS=on likewise; run_command runs in the chats' working trees (withWorkingTree)
  const commands = await startCommandRunner({ settings: config, logger });
  // replies must fit the server's max_payload, which the connection learns at connect
  const replyBudget = () => (connection.info?.max_payload ?? defaultMaxPayload) - replyOverheadBytes;
  const callRecords = await connection.jetstream().views.kv(jetStreamNames(prefix).toolCallsBucket, { history: 1, ttl: callRecordsMaxAgeMs, replicas: config.JS_REPLICAS });
  const dispatcher = new ToolDispatcher({
    deps: { sandbox, replyBudget, logger, scripts, commands, trees },
    records: callRecords,
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
  const projectFiles = new ProjectFiles(files, replyBudget, () => sandbox.outputPlaces(), async (project) => (await repositories.attached(project)) !== undefined);
  const staged = await StagedUploads.open(connection.jetstream(), { subjectPrefix: prefix, replicas: config.JS_REPLICAS });
  const writablePath = (space: FileSpaceRef, path: string) => projectFiles.writablePath(space, path);
  const archiveLimits = { maxEntries: config.SOURCE_MAX_FILES, maxTotalBytes: config.SOURCE_MAX_BYTES, maxEntryBytes: config.ARCHIVE_ENTRY_MAX_BYTES, maxRatio: config.ARCHIVE_MAX_RATIO };
  const converter = new DocumentConverter({ timeoutMs: config.CONVERT_TIMEOUT_MS, maxInputBytes: config.CONVERT_MAX_BYTES, maxOutputBytes: config.CONVERT_OUTPUT_MAX_BYTES, heapMb: config.CONVERT_HEAP_MB }, { maxWaiting: config.CONVERT_QUEUE_MAX, perUser: config.CONVERT_QUEUE_PER_USER });
  // an archive into a project with a repository is refused whole, not entry by entry
  const importUnlessRepository = async (request: z.infer<typeof FilesImportRequest>) => {
    try {
      await projectFiles.refuseRepository(request.space);
    } catch (error) {
      await staged.remove(request.staged);
      throw error;
    }
    return importArchive({ files, staged, writablePath, limits: archiveLimits }, request);
  };
  const filesSubject = (operation: string) => `${prefix}${subjects.files(operation)}`;
  const track = <T>(reply: Promise<T>) => inFlight.track(reply);
  addJsonEndpoint(service, "files_list", filesSubject("list"), FilesListRequest, (request) => track(projectFiles.list(request)), logger);
  addJsonEndpoint(service, "files_read", filesSubject("read"), FilesReadRequest, (request) => track(projectFiles.read(request)), logger);
  addJsonEndpoint(service, "files_revisions", filesSubject("revisions"), FilesRevisionsRequest, (request) => track(projectFiles.revisions(request)), logger);
  addJsonEndpoint(service, "files_write", filesSubject("write"), FilesWriteRequest, (request) => track(projectFiles.write(request)), logger);
  addJsonEndpoint(service, "files_delete", filesSubject("delete"), FilesDeleteRequest, (request) => track(projectFiles.remove(request)), logger);
  addJsonEndpoint(service, "files_restore", filesSubject("restore"), FilesRestoreRequest, (request) => track(projectFiles.restore(request)), logger);
  // a deleted project's repository goes with its files
  const purge = async (request: { space: FileSpaceRef }) => {
    if (request.space.kind === "project" && (await repositories.attached(request.space.id))) await repositories.detach(request.space.id);
    return projectFiles.purge(request);
  };
  addJsonEndpoint(service, "files_purge", filesSubject("purge"), FilesPurgeRequest, (request) => track(purge(request)), logger);
  addJsonEndpoint(service, "files_stat", filesSubject("stat"), FilesStatRequest, (request) => track(projectFiles.stat(request)), logger);
  addJsonEndpoint(service, "files_upload", filesSubject("upload"), FilesUploadRequest, (request) => track(uploadFile({ files, staged, writablePath, converter, convertMaxBytes: config.CONVERT_MAX_BYTES }, request)), logger);
  addJsonEndpoint(service, "files_import", filesSubject("import"), FilesImportRequest, (request) => track(importUnlessRepository(request)), logger);
  addJsonEndpoint(service, "files_source", filesSubject("source"), SourcePutRequest, (request) => track(putSource({ files, staged, limits: archiveLimits, now: () => new Date() }, request)), logger);
  addJsonEndpoint(service, "files_source_info", filesSubject("source_info"), SourceRequest, (request) => track(sourceInfo(files, request.project_id)), logger);
  addJsonEndpoint(service, "files_source_delete", filesSubject("source_delete"), SourceRequest, (request) => track(removeSource(files, request.project_id)), logger);
  const repositoryRequests = new RepositoryRequests(repositories, staged);
  const repositorySubject = (operation: string) => `${prefix}${subjects.repository(operation)}`;
  addJsonEndpoint(service, "repository_import", repositorySubject("import"), RepositoryImportRequest, (request) => track(repositoryRequests.import(request)), logger);
  addJsonEndpoint(service, "repository_clone", repositorySubject("clone"), RepositoryCloneRequest, (request) => track(repositoryRequests.clone(request)), logger);
  addJsonEndpoint(service, "repository_get", repositorySubject("get"), RepositoryRequest, (request) => track(repositoryRequests.get(request)), logger);
  addJsonEndpoint(service, "repository_detach", repositorySubject("detach"), RepositoryRequest, (request) => track(repositoryRequests.detach(request)), logger);
  addJsonEndpoint(service, "repository_push", repositorySubject("push"), RepositoryPushRequest, (request) => track(repositoryRequests.push(request)), logger);
  // a branch's commits and a chat's work (docs/repositories.md "A chat's work")
  const branchRequests = new BranchRequests(repositories, trees);
  addJsonEndpoint(service, "repository_commits", repositorySubject("commits"), BranchCommitsRequest, (request) => track(branchRequests.commits(request)), logger);
  addJsonEndpoint(service, "repository_branch", repositorySubject("branch"), ChatTreeRequest, (request) => track(branchRequests.branch(request)), logger);
  addJsonEndpoint(service, "repository_changes", repositorySubject("changes"), ChatTreeRequest, (request) => track(branchRequests.changes(request)), logger);
  addJsonEndpoint(service, "repository_discard", repositorySubject("discard"), ChatDiscardRequest, (request) => track(branchRequests.discard(request)), logger);
  // git's smart HTTP protocol for the gateway: a body past a quarter of the reply budget goes through the uploads store
  const transit = await TransitBodies.open(connection.jetstream(), staged, { subjectPrefix: prefix, flush: () => connection.flush(), inlineMax: () => Math.floor(replyBudget() / 4) });
  addGitEndpoints(service, { repositories, bodies: transit, logger, timeoutMs: gitServiceTimeoutMs, now: () => new Date() }, { prefix, track, logger });
  // a branch's files for the files API (docs/repositories.md "The files API on a repository"); a download's bytes travel as git's bodies do
  const treeFiles = new TreeFiles();
  const branchFiles = new BranchFiles(repositories, transit, replyBudget, treeFiles);
  addJsonEndpoint(service, "repository_files", repositorySubject("files"), BranchFilesRequest, (request) => track(branchFiles.list(request)), logger);
  addJsonEndpoint(service, "repository_read", repositorySubject("read"), BranchFileRequest, (request) => track(branchFiles.read(request)), logger);
  const branchArchive = new BranchArchive(repositories, transit, treeFiles);
  addJsonEndpoint(service, "repository_archive", repositorySubject("archive"), BranchArchiveRequest, (request) => track(branchArchive.archive(request)), logger);
  // a chat message's attachments, looked up in the chat's working tree (docs/repositories.md "Attachments in a chat")
  addJsonEndpoint(service, "repository_stat", repositorySubject("stat"), ChatFilesStatRequest, (request) => track(statChatFiles(trees, request)), logger);
  const installFiles = new InstallFiles(sandbox, replyBudget);
  addJsonEndpoint(service, "files_installed_list", filesSubject("installed_list"), InstalledFilesListRequest, (request) => track(installFiles.list(request)), logger);
  addJsonEndpoint(service, "files_installed_read", filesSubject("installed_read"), InstalledFileReadRequest, (request) => track(installFiles.read(request)), logger);
  logger.info({ projectRoot: sandbox.projectRoot, prefix, id: service.info().id }, "tool-runner serving");

  return {
    async stop() {
      await service.stop();
      await inFlight.whenIdle();
      await Promise.all([staged.close(), converter.close(), repositories.close()]);
      // replies are sent just after a handler settles: let them reach the connection before it drains
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function subjectPrefix(prefix: string): string {
  return prefix === "" || prefix.endsWith(".") ? prefix : `${prefix}.`;
}
