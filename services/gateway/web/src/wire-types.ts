/**
 * The gateway's wire shapes, as types only: the zod schemas in shared/ stay their single source of truth.
 * They are imported file by file because the package index also exports the server side (NATS, logging),
 * whose declarations would pull Node's globals into browser code.
 */
export type { AgentDefinition, AgentSummary, MenuItem } from "../../../../shared/src/wire/agent.js";
export type { AgentModel } from "../../../../shared/src/wire/model-routes.js";
export type { ErrorBody, ErrorCode } from "../../../../shared/src/wire/error-code.js";
export type { RunEvent } from "../../../../shared/src/wire/run-event.js";
export type { FileListing, FileRevision } from "../../../../shared/src/wire/projects/file-entry.js";
export type { MemberRole, ProjectMember, ProjectRole, ProjectView } from "../../../../shared/src/wire/projects/project-record.js";
export type { NextStep, ProjectArtifact, ProjectOverview } from "../../../../shared/src/wire/projects/project-overview.js";
export type { AttachedFile, Attachment } from "../../../../shared/src/wire/chat-attachment.js";
export type { SessionSummary, SessionView, VisibleMessage } from "../../../../shared/src/wire/session-messages.js";
export type { Usage } from "../../../../shared/src/wire/usage.js";
export type { SignInStatus } from "../../../../shared/src/wire/sign-in.js";
export type { ProjectUsage, UserUsage } from "../../../../shared/src/wire/spending.js";
export type { MemberSettings, ProjectSettings } from "../../../../shared/src/wire/settings/bmad-settings.js";
