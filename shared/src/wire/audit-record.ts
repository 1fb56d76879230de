import { z } from "zod";

/**
 * The audit log (docs/audit.md): one record per security-relevant act, in the JetStream stream `AUDIT` on
 * `audit.<project or _>.<actor, base64url, or _>.<action>` (subjects.audit), so a project's records, or one
 * actor's, are read with a subject filter. A record never holds file contents, secrets or tokens.
 */
export const AuditAction = z.enum([
  "sign_in",
  "sign_out",
  "sign_in_failed",
  "token_created",
  "token_revoked",
  "project_created",
  "project_renamed",
  "project_deleted",
  "project_settings_changed",
  "member_put",
  "member_removed",
  "file_uploaded",
  "file_written",
  "file_restored",
  "file_deleted",
  "archive_exported",
  "archive_imported",
  "snapshot_put",
  "snapshot_deleted",
  /** a project's git repository attached (from a bundle, or a clone of a URL the detail names) or detached (docs/repositories.md) */
  "repository_attached",
  "repository_detached",
  /** the owner pushed a branch to the repository's remote: the branch in `target`, its commit and the remote's URL (never a credential) in `detail` */
  "repository_pushed",
  /** a member discarded a chat's uncommitted changes in its working tree (docs/repositories.md "A chat's work") */
  "changes_discarded",
  "chat_started",
  "chat_cancelled",
  "chat_deleted",
  /** a member approved or rejected a pending tool call (docs/approvals.md); `call` holds its arguments */
  "approval_decided",
  /** a `git push` over /git/<project>.git (docs/repositories.md "Plain git over HTTP"): its refs old → new in `target` */
  "git_pushed",
]);
export type AuditAction = z.infer<typeof AuditAction>;

/** ok: done; refused: the caller may not (401, 403, 404 of a project they cannot see, a limit); failed: it went wrong. */
export const AuditOutcome = z.enum(["ok", "refused", "failed"]);
export type AuditOutcome = z.infer<typeof AuditOutcome>;

/**
 * The tool call a decision was about: its arguments as the model sent them and, when a member edited them, as they ran,
 * each previewed (long strings cut, naming their length) with the SHA-256 of the whole JSON, so the record stays small
 * and still names exactly what ran.
 */
export const AuditToolCall = z.object({
  tool: z.string(),
  call_id: z.string(),
  approval_id: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  arguments_sha256: z.string(),
  edited_arguments: z.record(z.string(), z.unknown()).optional(),
  edited_arguments_sha256: z.string().optional(),
  /** set when a preview was cut */
  truncated: z.boolean().optional(),
});
export type AuditToolCall = z.infer<typeof AuditToolCall>;

/** Longest `detail` kept: a code or a short note, never content. */
export const maxAuditDetailChars = 200;

export const AuditRecord = z.object({
  id: z.string(),
  /** ISO time the act was recorded */
  time: z.string(),
  /** the user who acted; `_` when nobody signed in (a failed sign-in) */
  actor: z.string(),
  action: AuditAction,
  project_id: z.string().optional(),
  /** what the act was on: a file path, a member, a token id, a session id */
  target: z.string().max(1024).optional(),
  client_address: z.string().optional(),
  outcome: AuditOutcome,
  /** a small note (an error code, a role, a file count); never file contents, secrets or tokens */
  detail: z.string().max(maxAuditDetailChars).optional(),
  /** on `approval_decided`: the call and its arguments, original and edited */
  call: AuditToolCall.optional(),
});
export type AuditRecord = z.infer<typeof AuditRecord>;

/** `GET /api/projects/:id/audit` query. `cursor` is the `next_cursor` of the previous page. */
export const AuditQuery = z
  .object({
    since: z.string().datetime({ offset: true }).optional(),
    until: z.string().datetime({ offset: true }).optional(),
    actor: z.string().min(1).max(128).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().regex(/^[1-9][0-9]{0,15}$/).optional(),
  })
  .strict();
export type AuditQuery = z.infer<typeof AuditQuery>;

/** A page of records, oldest first, each with its stream sequence; `next_cursor` is absent on the last page. */
export const AuditPage = z.object({
  success: z.literal(true),
  records: z.array(AuditRecord.extend({ seq: z.number().int() })),
  next_cursor: z.string().optional(),
});
export type AuditPage = z.infer<typeof AuditPage>;
