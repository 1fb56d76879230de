/**
 * `@agent-orchestrator/shared`: the one entry point the services import. Every name is listed below on purpose
 * (values with `export`, type-only names with `export type`), so adding a file to `shared/src/` exports nothing
 * until it is named here, and a reader sees what the package offers without opening every file.
 *
 * Layout:
 * - `wire/`: what crosses a process boundary. The zod schemas of NATS messages and HTTP/WebSocket bodies
 *   (registry, run, session, tool call, MCP, OpenAI-compatible `/v1`), the NATS subjects, the error codes, the run
 *   events, the tool catalogue, usage, and the session and project records (`wire/projects/`). Changing one of
 *   these changes a contract between services or with clients; the gateway's web page reads its types from here.
 * - `runtime/`: helpers a process uses and never sends: the logger, config from the environment, the NATS
 *   connection, request/endpoint helpers and the retry and failure classification (`runtime/nats/`), `AppError`,
 *   JSON safety, path containment, queues, concurrency, the service lifecycle and telemetry
 *   (`runtime/telemetry/`).
 * - `bmad/`: BMAD's file formats (agent files, SKILL.md, customize.toml, manifests, YAML). Kept apart from both:
 *   it is neither a contract between our services nor process plumbing but a reader of a third party's formats,
 *   pure text-in/typed-out, and may become its own package.
 * - `testing/`: helpers for tests only (fakes, fixtures); not exported and not built.
 *
 * Direction (folders are layers, bottom first: `folderLayers` in package.json, checked by lint): `wire/` imports
 * only zod and its own files (it also holds the pure look-ups schemas need: `getOwn`, the forbidden keys, the skill
 * name pattern); `runtime/` uses `wire/`; `bmad/` uses both (the agent shapes it produces, containment).
 */

// Wire contracts
export { AgentDefinition, AgentFormat, AgentSource, AgentSummary, MenuItem, Persona } from "./wire/agent.js";
export { ErrorBody, ErrorCode, ErrorReply } from "./wire/error-code.js";
export { ActivationBody, ActivationQuery, ChatRequestBody, ProjectMemberBody, ProjectNameBody, WsClientMessage } from "./wire/http-api.js";
export { ActivationData, ActivationReply, ActivationRequest, BundleInfo, GetAgentReply, GetAgentRequest, ListAgentsReply, ListAgentsRequest, ListBundlesReply, ListBundlesRequest, RegistryChanged, RegistryWarning, RegistryWarningCode, SkillActivationData, SkillReply, SkillRequest } from "./wire/registry-messages.js";
export { RunEvent, isFinalEvent, joinAnswerTexts } from "./wire/run-event.js";
export type { RunEventBody, RunEventType } from "./wire/run-event.js";
export { RunParent, RunStartRequest, maxUserMessageChars } from "./wire/run-messages.js";
export { RunCancel, SessionGetReply, SessionGetRequest, SessionListReply, SessionListRequest, SessionSummary, SessionView, VisibleMessage } from "./wire/session-messages.js";
export { SessionDeleteReply, SessionDeleteRequest, SessionListQuery, SessionMatch, SessionRenameReply, SessionRenameRequest, SessionSearchReply, SessionSearchRequest, SessionSearchText, SessionTitle, SessionTitleBody } from "./wire/session-management-messages.js";
export { ConversationBatch, ConversationMessage, SessionHead, SessionRecord, SessionStatus } from "./wire/session-record.js";
export { Greeting, GreetingMenuItem, GreetingQuery, GreetingReply, GreetingRequest, SessionStartBody, SessionStartReply } from "./wire/greeting-messages.js";
export { inboxPrefixFor, jetStreamNames, serviceNames, subjectTokenPattern, subjects } from "./wire/subjects.js";
export { givenName, hasBidiFormat, withoutBidiFormat } from "./wire/bidi-format.js";
export type { ServiceName } from "./wire/subjects.js";
export { ToolCallRequest, ToolContext, ToolResult } from "./wire/tool-call.js";
export { forbiddenKeys, isForbiddenKey } from "./wire/forbidden-keys.js";
export { getOwn } from "./wire/get-own.js";
export { skillNamePattern } from "./wire/skill-name-pattern.js";
export { EditFileArgs, FindFilesArgs, ListFilesArgs, LoadSkillArgs, PreloadWorkflowArgs, ReadFileArgs, RunScriptArgs, RunSubagentArgs, RunnerToolName, SaveOutputArgs, SearchFilesArgs, ToolName, orchestratorToolNames, toolCatalog, toolDefinitionsForModel } from "./wire/tool-catalog.js";
export type { ToolArgs, ToolDefinition } from "./wire/tool-catalog.js";
export { Usage, addUsage, zeroUsage } from "./wire/usage.js";
export { BudgetView, PeriodSpending, ProjectBudgetBody, ProjectBudgetRequest, ProjectUsage, ProjectUsageReply, ProjectUsageRequest, SpendingTotals, UserUsage, UserUsageReply, UserUsageRequest, addSpending, zeroSpending } from "./wire/spending.js";
export { ModelPrice, costOf, parseModelPrice } from "./wire/model-price.js";
export {
  CompactionFigures,
  CompactionMarker,
  CompactionPoint,
  CompactionReason,
  CompactionStage,
  compactionEventFields,
  isCompactionMarker,
  SessionCompactReply,
  SessionCompactRequest,
} from "./wire/compaction.js";
export { AgentModel, ModelRouteMatch, ModelRoutesReply, ModelRoutesRequest, ModelRouteView, pickModelRoute, routeMatches } from "./wire/model-routes.js";
export type { ModelRouteSubject } from "./wire/model-routes.js";
export { menuItemSkill } from "./wire/menu-item-skill.js";
export { AuditAction, AuditOutcome, AuditPage, AuditQuery, AuditRecord, AuditToolCall, maxAuditDetailChars } from "./wire/audit-record.js";
export { PersonalTokenCreateBody, PersonalTokenCreateReply, PersonalTokenListReply, PersonalTokenRecord, PersonalTokenView, personalTokenPrefix } from "./wire/personal-token.js";
export { SignInSession, SignInStatus, SignInVia } from "./wire/sign-in.js";
export { LoadedSkill } from "./wire/loaded-skill.js";
export { BmadToolInput, ChatToolInput } from "./wire/mcp-tools.js";
export { ChatCompletionRequest, OpenAiErrorBody, OpenAiFilePart, OpenAiMessage, maxOpenAiMessages } from "./wire/openai-api.js";
export { ResponseContentPart, ResponseCreateRequest, ResponseId, ResponseInputFile, ResponseInputItem, ResponseStatus, StoredResponse, responseIdPattern } from "./wire/openai-responses.js";
export { AttachedFile, AttachedFiles, Attachment, AttachmentName, Attachments, maxAttachments } from "./wire/chat-attachment.js";
export { withAttachedFiles } from "./wire/attached-files-note.js";
export { FileAuthor, FileConversion, FileListing, FileRevision } from "./wire/projects/file-entry.js";
export {
  FilesImportReply,
  FilesImportRequest,
  FilesStatReply,
  FilesStatRequest,
  FilesUploadReply,
  FilesUploadRequest,
  SkippedEntry,
  SourceInfoReply,
  SourceManifest,
  SourcePutReply,
  SourcePutRequest,
  SourceRequest,
  SourceSnapshotInfo,
  StagedName,
} from "./wire/projects/upload-messages.js";
export { FileSpaceRef, FilesChangeReply, FilesDeleteRequest, FilesListReply, FilesListRequest, FilesPurgeReply, FilesPurgeRequest, FilesReadReply, FilesReadRequest, FilesRestoreRequest, FilesRevisionsReply, FilesRevisionsRequest, FilesWriteRequest } from "./wire/projects/file-messages.js";
export { InstalledFileListing, InstalledFileReadReply, InstalledFileReadRequest, InstalledFilesListReply, InstalledFilesListRequest, maxInstalledFilesPerPage } from "./wire/projects/installed-file-messages.js";
export { ProjectChanged, ProjectCreateRequest, ProjectDeleteReply, ProjectDeleteRequest, ProjectGetRequest, ProjectListReply, ProjectListRequest, ProjectMemberDeleteRequest, ProjectMemberPutRequest, ProjectMembersReply, ProjectMembersRequest, ProjectRenameRequest, ProjectReply, projectOperations } from "./wire/projects/project-messages.js";
export { AnswerKey, AnswerValue, BmadAnswers, MemberAnswers, MemberSettings, ProjectSettings, SettingsLayer, SettingsLayers, SkillCustomization, SkillCustomizations, asAnswer, maxAnswerChars, maxMemberSettingsBytes, maxProjectSettingsBytes } from "./wire/settings/bmad-settings.js";
export { ApprovalDeciders, ApprovalPolicy, ApprovalToolName, ApprovalsSettings, CommandPattern, CommandRule, EffectiveApprovals, builtInApprovals, effectiveApprovals, maxCommandRules, maxExpireMinutes } from "./wire/settings/approvals-settings.js";
export { ApprovalDecided, ApprovalDecision, ApprovalOutcome, ApprovalRecord, ApprovalStatus, ToolArguments, approvalIdSchema, maxDecisionMessageChars } from "./wire/approvals/approval-record.js";
export { commandLineParts, normaliseSpace, scanCommandLine } from "./wire/approvals/command-line-parts.js";
export type { CommandLineScan } from "./wire/approvals/command-line-parts.js";
export { ApprovalDecideReply, ApprovalDecideRequest, ApprovalDecisionBody, ApprovalListReply, ApprovalListRequest, ApprovalView } from "./wire/approvals/approval-messages.js";
export { CallerName, MemberSettingsPutRequest, MemberSettingsReply, MemberSettingsRequest, ProjectSettingsPutRequest, ProjectSettingsReply, ProjectSettingsRequest } from "./wire/settings/settings-messages.js";
export type { ProjectOperation } from "./wire/projects/project-messages.js";
export { MemberRole, ProjectMember, ProjectRecord, ProjectRole, ProjectView, mayWrite, newProjectName, projectIdSchema, projectNameSchema, roleOf, toProjectView, userNameSchema } from "./wire/projects/project-record.js";

// BMAD formats
export { buildSkillAgent } from "./bmad/agent-skill.js";
export type { SkillAgentInputs } from "./bmad/agent-skill.js";
export { BundleManifest, ManifestAgent, parseBundleManifest } from "./bmad/bundle-manifest.js";
export type { ReadManifest } from "./bmad/bundle-manifest.js";
export { criticalFiles, fileToLoad } from "./bmad/critical-file.js";
export { cell, parseCsvTable } from "./bmad/csv-table.js";
export type { CsvRow } from "./bmad/csv-table.js";
export { centralConfigLayers, customizationKind, isTable, mergeLayers, parseTomlLayer, skillOverrideLayers, structuralMerge, tomlLayerText } from "./bmad/customization.js";
export { configUserOverlay, lateAnswerNames, lateAnswers, settingsCustomizationLayers, skillUserOverlay, withoutLateAnswers, withSettingsAnswers } from "./bmad/settings-merge.js";
export type { TomlTable } from "./bmad/customization.js";
export { readFrontMatter, splitFrontMatter } from "./bmad/front-matter.js";
export type { FrontMatter, SplitFrontMatter } from "./bmad/front-matter.js";
export { coreModuleFolder, isInstallPlace, isInstallTreeName, isOutputVariable, isSkillHostName, mapOutputVariables, skillFileName, skillsFolderName } from "./bmad/install-layout.js";
export { checkManifestPath } from "./bmad/manifest-path.js";
export type { ManifestPathCheck } from "./bmad/manifest-path.js";
export { parseModuleConfig } from "./bmad/module-config.js";
export { parseAgentFile, parseAgentForCache } from "./bmad/parse-agent-file.js";
export type { ParseOutcome } from "./bmad/parse-outcome.js";
export { buildMenuItem, emptyPersona, menuTargetFields, readAgentNaming } from "./bmad/parsed-agent.js";
export type { AgentNaming, MenuHandler, MenuTargetField, ParseAgentResult, ParseNote, ParsedAgent, SkillAgentExtras } from "./bmad/parsed-agent.js";
export { listSkillFolder, skillFileLimits } from "./bmad/skill-files.js";
export { findToolSkills, findTreeSkills } from "./bmad/skill-locator.js";
export type { SkillCandidate, ToolSkillSearch } from "./bmad/skill-locator.js";
export { parseSkillMd, readSkillMd } from "./bmad/skill-md.js";
export type { SkillDocument } from "./bmad/skill-md.js";
export { assertSkillName, closeNames, skillNotFound } from "./bmad/skill-name.js";
export { renderValue, resolveSkillText } from "./bmad/skill-text.js";
export type { SkillTextScope } from "./bmad/skill-text.js";
export { hasSkillFile, skillFoldersUnder, treeSearchDepth, treeSearchMaxFolders } from "./bmad/skill-tree-search.js";
export { parseBmadYaml, parseYamlMapping, yamlAliasLimit } from "./bmad/yaml.js";
export type { YamlResult } from "./bmad/yaml.js";
export { asMapping, field, flattenText, scalarText, textList } from "./bmad/yaml-values.js";

// Runtime helpers
export { AppError, toErrorBody } from "./runtime/app-error.js";
export { baseEnvSchema, envInt, loadEnv, parseEnv } from "./runtime/env-config.js";
export type { EnvParseResult } from "./runtime/env-config.js";
export { isInside, relativeInside } from "./runtime/path-containment.js";
export { addJsonEndpoint } from "./runtime/json-endpoint.js";
export type { JsonHandler } from "./runtime/json-endpoint.js";
export { createLogger } from "./runtime/logger.js";
export type { Logger } from "./runtime/logger.js";
export { mapWithConcurrency } from "./runtime/map-with-concurrency.js";
export { connectNats, natsCredentialsFromEnv } from "./runtime/nats-connection.js";
export type { ConnectOptions, NatsCredentials } from "./runtime/nats-connection.js";
export { decodeJson, encodeJson, requestJson } from "./runtime/nats-request.js";
export type { RequestOptions } from "./runtime/nats-request.js";
export { parseJson } from "./runtime/safe-json.js";
export type { JsonParseResult } from "./runtime/safe-json.js";
export { stopOnSignals } from "./runtime/service-lifecycle.js";
export type { StopCause } from "./runtime/service-lifecycle.js";
export { watchRegistryChanges } from "./runtime/registry-change-watch.js";
export { firstIssue } from "./runtime/zod-issue.js";
export { startMetricsServer } from "./runtime/telemetry/metrics-server.js";
export type { MetricsServer } from "./runtime/telemetry/metrics-server.js";
export { inEndpointSpan, natsAttributes, startSendSpan } from "./runtime/telemetry/nats-spans.js";
export { traceContextOf, traceHeadersOption, withTraceHeaders } from "./runtime/telemetry/nats-trace-headers.js";
export { errorType, inSpan, markCurrentSpanFailed, markFailed, noSpan, startSpan } from "./runtime/telemetry/spans.js";
export { telemetryEnvSchema, tracingWanted } from "./runtime/telemetry/telemetry-env.js";
export type { TelemetryConfig } from "./runtime/telemetry/telemetry-env.js";
export { traceLogFields } from "./runtime/telemetry/trace-log-fields.js";
export { setTracingActive, tracer, tracingActive } from "./runtime/telemetry/tracer.js";
export { startTracing } from "./runtime/telemetry/tracing-setup.js";
export type { Tracing } from "./runtime/telemetry/tracing-setup.js";
export { utf8PrefixEnd } from "./runtime/utf8-prefix.js";
export { isCasConflict } from "./runtime/kv-conflict.js";
export { KeyedQueue } from "./runtime/keyed-queue.js";
export { natsFailureKind } from "./runtime/nats/nats-failure.js";
export type { NatsFailureKind } from "./runtime/nats/nats-failure.js";
export { natsRetryDelay, retryNats, retryWhileLeaderless } from "./runtime/nats/nats-retry.js";
export type { NatsRetryOptions, NatsRetryPolicy } from "./runtime/nats/nats-retry.js";
export { fileStoreElectionWaitMs, leaderElectionWaitMs, longestLeaderElectionMs, runEventStoreBudgetMs, runEventWatchHoldMs, scriptTimeoutDefaultMs, toolTimeoutDefaultMs } from "./runtime/nats/nats-wait-budgets.js";
export { queueRunRequest } from "./runtime/nats/queue-run-request.js";
export { AuditPublisher, auditActorToken, auditProjectToken } from "./runtime/audit/audit-publisher.js";
export type { AuditEntry } from "./runtime/audit/audit-publisher.js";
export { HelpCatalogueEntry, HelpCatalogueReply, HelpCatalogueRequest } from "./wire/help-messages.js";
export { MethodPhase, NextStep, ProjectArtifact, ProjectOverview } from "./wire/projects/project-overview.js";
export { parseHelpCatalogue } from "./bmad/help-catalogue.js";
export type { HelpEntry } from "./bmad/help-catalogue.js";
export { methodOverview } from "./bmad/method-overview.js";
export { putObjectPaced, readObjectChunks } from "./runtime/nats/object-streams.js";
export type { QueueRunRequestOptions } from "./runtime/nats/queue-run-request.js";
