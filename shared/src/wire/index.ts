/**
 * `@agent-orchestrator/shared/wire`: what crosses a process boundary. The zod schemas of NATS messages and
 * HTTP/WebSocket bodies (registry, run, session, tool call, MCP, OpenAI-compatible `/v1`), the NATS subjects, the
 * error codes, the run events, the tool catalogue, usage, and the session and project records (`projects/`).
 * Changing one of these changes a contract between services or with clients.
 *
 * Browser-safe: these files import only zod and each other (no `node:` module, no NATS client), so the gateway's
 * web page imports its types from here too. The pure look-ups schemas need (`getOwn`, the forbidden keys, the
 * skill name pattern) live here for the same reason.
 */
export { AgentDefinition, AgentSummary, MenuItem } from "./agent.js";
export { withAttachedFiles } from "./attached-files-note.js";
export { ApprovalDecideReply, ApprovalDecideRequest, ApprovalDecisionBody, ApprovalListReply, ApprovalListRequest, ApprovalView, ChatAwaitingApprovalReply, PendingCall } from "./approvals/approval-messages.js";
export { ApprovalDecided, ApprovalDecision, ApprovalOutcome, ApprovalRecord, ApprovalStatus, PausedTurnFigures, ToolArguments, approvalIdSchema, maxDecisionMessageChars } from "./approvals/approval-record.js";
export { commandLineParts, normaliseSpace, scanCommandLine } from "./approvals/command-line-parts.js";
export { RunResume, isResumeSubject, runResumeSubject } from "./approvals/run-resume.js";
export type { CommandLineScan } from "./approvals/command-line-parts.js";
export { AuditAction, AuditOutcome, AuditPage, AuditQuery, AuditRecord, AuditToolCall } from "./audit-record.js";
export { withoutBidiFormat } from "./bidi-format.js";
export { AttachedFile, AttachedFiles, Attachment, AttachmentName, maxAttachments } from "./chat-attachment.js";
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
} from "./compaction.js";
export { ErrorBody, ErrorCode, ErrorReply } from "./error-code.js";
export { isForbiddenKey } from "./forbidden-keys.js";
export { getOwn } from "./get-own.js";
export { Greeting, GreetingMenuItem, GreetingQuery, GreetingReply, GreetingRequest, SessionStartBody, SessionStartReply } from "./greeting-messages.js";
export { HelpCatalogueEntry, HelpCatalogueReply, HelpCatalogueRequest } from "./help-messages.js";
export { ActivationBody, ActivationQuery, ChatRequestBody, ProjectMemberBody, ProjectNameBody, WsClientMessage } from "./http-api.js";
export { LoadedSkill } from "./loaded-skill.js";
export { McpElicitationAnswer } from "./mcp-elicitation.js";
export { BmadToolInput, ChatToolInput } from "./mcp-tools.js";
export { menuItemSkill } from "./menu-item-skill.js";
export { ModelPrice, costOf, parseModelPrice } from "./model-price.js";
export { AgentModel, ModelRouteMatch, ModelRouteView, ModelRoutesReply, ModelRoutesRequest, pickModelRoute, routeMatches } from "./model-routes.js";
export type { ModelRouteSubject } from "./model-routes.js";
export { ChatCompletionRequest, OpenAiErrorBody, OpenAiFilePart, OpenAiMessage } from "./openai-api.js";
export { ResponseContentPart, ResponseCreateRequest, StoredResponse, responseIdPattern } from "./openai-responses.js";
export { PersonalTokenCreateBody, PersonalTokenRecord, PersonalTokenView, personalTokenPrefix } from "./personal-token.js";
export { FileAuthor, FileConversion, FileListing, FileRevision } from "./projects/file-entry.js";
export {
  FileSpaceRef,
  FilesChangeReply,
  FilesDeleteRequest,
  FilesListReply,
  FilesListRequest,
  FilesPurgeReply,
  FilesPurgeRequest,
  FilesReadReply,
  FilesReadRequest,
  FilesRestoreRequest,
  FilesRevisionsReply,
  FilesRevisionsRequest,
  FilesWriteRequest,
} from "./projects/file-messages.js";
export { GitAdvertiseRequest, GitBody, GitProtocolHeader, GitRefUpdate, GitRpcReply, GitRpcRequest, GitService } from "./projects/git-messages.js";
export {
  BranchCommitsQuery,
  BranchCommitsReply,
  BranchCommitsRequest,
  BranchName,
  ChangedFile,
  ChatBranchReply,
  ChatChanges,
  ChatChangesQuery,
  ChatChangesReply,
  ChatDiscardRequest,
  ChatTreeRequest,
  CommitView,
  maxCommitsPage,
  maxShownBodyChars,
} from "./projects/branch-messages.js";
export {
  BranchArchiveReply,
  BranchArchiveRequest,
  BranchFileListing,
  BranchFileReply,
  BranchFileRequest,
  BranchFilesQuery,
  BranchFilesReply,
  BranchFilesRequest,
  BranchPoint,
  ChatFilesStatReply,
  ChatFilesStatRequest,
  maxBranchFilesPage,
} from "./projects/branch-files-messages.js";
export { InstalledFileListing, InstalledFileReadReply, InstalledFileReadRequest, InstalledFilesListReply, InstalledFilesListRequest } from "./projects/installed-file-messages.js";
export { ChatBranchName, branchRef, chatBranch, chatBranchPrefix, isAcceptedRefName, refNameMaxLength } from "./projects/ref-name.js";
export { RepositoryCloneBody, RepositoryCloneRequest, RepositoryImportRequest, RepositoryReply, RepositoryRequest, RepositoryView } from "./projects/repository-messages.js";
export { RepositoryPushBody, RepositoryPushed, RepositoryPushReply, RepositoryPushRequest } from "./projects/repository-push-messages.js";
export {
  ProjectChanged,
  ProjectCreateRequest,
  ProjectDeleteReply,
  ProjectDeleteRequest,
  ProjectGetRequest,
  ProjectListReply,
  ProjectListRequest,
  ProjectMemberDeleteRequest,
  ProjectMemberPutRequest,
  ProjectMembersReply,
  ProjectMembersRequest,
  ProjectRenameRequest,
  ProjectReply,
} from "./projects/project-messages.js";
export type { ProjectOperation } from "./projects/project-messages.js";
export { NextStep, ProjectArtifact, ProjectOverview } from "./projects/project-overview.js";
export { MemberRole, ProjectMember, ProjectRecord, ProjectRole, ProjectView, mayWrite, roleOf, toProjectView, userNameSchema } from "./projects/project-record.js";
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
} from "./projects/upload-messages.js";
export {
  ActivationData,
  ActivationReply,
  ActivationRequest,
  BundleInfo,
  GetAgentReply,
  GetAgentRequest,
  ListAgentsReply,
  ListAgentsRequest,
  ListBundlesReply,
  ListBundlesRequest,
  RegistryChanged,
  RegistryWarning,
  RegistryWarningCode,
  SkillActivationData,
  SkillReply,
  SkillRequest,
} from "./registry-messages.js";
export { RunEvent, isFinalEvent, joinAnswerTexts } from "./run-event.js";
export type { RunEventBody } from "./run-event.js";
export { RunParent, RunStartRequest, maxUserMessageChars } from "./run-messages.js";
export {
  SessionDeleteReply,
  SessionDeleteRequest,
  SessionListQuery,
  SessionMatch,
  SessionRenameReply,
  SessionRenameRequest,
  SessionSearchReply,
  SessionSearchRequest,
  SessionTitleBody,
} from "./session-management-messages.js";
export { RunCancel, SessionGetReply, SessionGetRequest, SessionListReply, SessionListRequest, SessionSummary, SessionView, VisibleMessage } from "./session-messages.js";
export { ConversationBatch, ConversationMessage, SessionHead, SessionRecord, SessionStatus } from "./session-record.js";
export { MemberSettings, ProjectSettings, SettingsLayers, asAnswer } from "./settings/bmad-settings.js";
export { RepositorySettings, VerifyCommand, maxVerifyCommands, verifyRules, withVerifyCommands } from "./settings/repository-settings.js";
export {
  ApprovalDeciders,
  ApprovalPolicy,
  ApprovalToolName,
  ApprovalsSettings,
  CommandPattern,
  CommandRule,
  EffectiveApprovals,
  builtInApprovals,
  effectiveApprovals,
  maxCommandRules,
  maxExpireMinutes,
} from "./settings/approvals-settings.js";
export { MemberSettingsPutRequest, MemberSettingsReply, MemberSettingsRequest, ProjectSettingsPutRequest, ProjectSettingsReply, ProjectSettingsRequest } from "./settings/settings-messages.js";
export { SignInSession, SignInStatus, SignInVia } from "./sign-in.js";
export { skillNamePattern } from "./skill-name-pattern.js";
export {
  BudgetView,
  ProjectBudgetBody,
  ProjectBudgetRequest,
  ProjectUsage,
  ProjectUsageReply,
  ProjectUsageRequest,
  SpendingTotals,
  UserUsage,
  UserUsageReply,
  UserUsageRequest,
  addSpending,
  zeroSpending,
} from "./spending.js";
export { inboxPrefixFor, jetStreamNames, serviceNames, subjectTokenPattern, subjects } from "./subjects.js";
export type { ServiceName } from "./subjects.js";
export { ToolCallRequest, ToolContext, ToolResult } from "./tool-call.js";
export { ReadFileArgs, RunCommandResult, RunnerToolName, ToolName, toolCatalog, toolDefinitionsForModel } from "./tool-catalog.js";
export type { ToolArgs } from "./tool-catalog.js";
export { Usage, addUsage, zeroUsage } from "./usage.js";
