import { z } from "zod";

/**
 * The closed set of error codes used by every service, every NATS reply and every HTTP/WS error body.
 * Adding a code is a deliberate act: the gateway's status table must map it.
 */
export const ErrorCode = z.enum([
  // caller's fault
  "BAD_REQUEST",
  "VALIDATION_ERROR",
  "UNAUTHORIZED",
  "FORBIDDEN",
  /** a state-changing request signed in by the sign-in cookie without its CSRF token, or from a foreign origin (docs/sign-in.md) */
  "CSRF_REFUSED",
  "NOT_FOUND",
  "AGENT_NOT_FOUND",
  "SESSION_NOT_FOUND",
  "SESSION_BUSY",
  /** a new chat's message attaches a file of its scratch space (`folder: "session"`): a chat has one only once started (POST /api/sessions) */
  "SESSION_REQUIRED",
  /** a project that does not exist or that the caller is not a member of (the two answer alike) */
  "PROJECT_NOT_FOUND",
  /** a member whose role does not allow it: a viewer starting a turn or writing, a non-owner managing the project */
  "PROJECT_FORBIDDEN",
  /** a project with a running turn cannot be deleted */
  "PROJECT_BUSY",
  /** the user already owns PROJECTS_PER_USER projects (their personal one not counted): delete one to make another */
  "PROJECT_LIMIT",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED",
  /** the user already runs USER_MAX_CONCURRENT_TURNS turns: this one was refused unstarted (retry when one ends) */
  "USER_TURN_LIMIT",
  /**
   * a project's monthly or a user's daily budget is spent (docs/models.md "Budgets"): a new turn is refused unstarted,
   * a running one stops at its next model call; the message names the budget and when it resets
   */
  "BUDGET_EXCEEDED",
  /** the user already holds PERSONAL_TOKENS_PER_USER personal tokens: revoke one to make another */
  "TOKEN_LIMIT",
  /** a pending tool call that does not exist, or is another chat's (docs/approvals.md) */
  "APPROVAL_NOT_FOUND",
  /** a decision on a call that is no longer pending: decided already, expired or cancelled */
  "APPROVAL_DECIDED",
  /** a turn that waited for a decision past `approvals.expire_minutes` ended with this (what it wrote is kept) */
  "APPROVAL_EXPIRED",
  /** a tool call its project's policy refuses (`deny`), or one that needs a decision where nobody can give one (`/v1`, a subagent) */
  "TOOL_CALL_DENIED",
  /** a tool call a member rejected; the message is theirs */
  "TOOL_CALL_REJECTED",
  // sandbox verdicts (tool-runner)
  "ACCESS_DENIED",
  "INVALID_PATH",
  "PATH_OUTSIDE_ROOT",
  "SYMLINK_ESCAPE",
  "PATH_CHANGED",
  "PROTECTED_PATH",
  "NAME_TOO_LONG",
  "UNRESOLVED_VARIABLE",
  "FILE_NOT_FOUND",
  "NOT_A_FILE",
  "NOT_A_REGULAR_FILE",
  "FILE_TOO_LARGE",
  "CONTENT_TOO_LARGE",
  "BINARY_FILE",
  "WRITE_FAILED",
  /** edit_file: old_string is not in the file (nothing was changed) */
  "EDIT_NO_MATCH",
  /** edit_file: old_string occurs more than once and replace_all was not set (nothing was changed) */
  "EDIT_NOT_UNIQUE",
  /** find_files or search_files: a glob or regular expression that does not parse */
  "INVALID_PATTERN",
  /** search_files: the regular expression ran too long on one file (catastrophic backtracking) and was stopped */
  "PATTERN_TIMEOUT",
  /**
   * the session holds SESSION_MAX_FILES files or SESSION_MAX_BYTES bytes: a write that adds more is refused; also the
   * sessions bucket full at SESSIONS_BUCKET_MAX_BYTES, which refuses every save of a turn
   */
  "QUOTA_EXCEEDED",
  /** an uploaded archive (code snapshot, import) broke an extraction rule: nothing of it was stored */
  "ARCHIVE_REFUSED",
  /** a project's repository: a bundle or clone git refused or that broke a limit; nothing of it was stored (docs/repositories.md) */
  "REPOSITORY_REFUSED",
  /** the project has a repository already: detach it before attaching another */
  "REPOSITORY_EXISTS",
  /** a push to the repository's remote asked of a repository that came from a bundle: it has no remote (docs/repositories.md "Pushing to the remote") */
  "REPOSITORY_NO_REMOTE",
  /** the remote refused a push (not a fast-forward, the credential) or could not be reached; the message is git's reason, without credential or host paths */
  "REMOTE_PUSH_FAILED",
  /** a command made a commit that does not name the member whose turn it was or lacks the agent's and the chat's trailers; nothing it changed was kept (docs/repositories.md "Commits by the model") */
  "COMMIT_REFUSED",
  /** `?branch=` of the files API names no branch of the project's repository, or the project has none (docs/repositories.md "The files API on a repository") */
  "BRANCH_NOT_FOUND",
  /** an upload, edit, delete or restore through the files API in a project with a repository: its files change with git (push), never the old store */
  "REPOSITORY_FILES_READ_ONLY",
  // skills and scripts (tool-runner)
  "SKILL_NOT_FOUND",
  "SCRIPT_REJECTED",
  "SCRIPTS_DISABLED",
  "SCRIPT_TIMEOUT",
  "SCRIPT_FAILED",
  "SCRIPT_LIMIT_EXCEEDED",
  // run_command (tool-runner, docs/commands.md)
  /** commands are off on this server (COMMANDS, or no working sandbox) */
  "COMMANDS_DISABLED",
  /** run_command in a project without a git repository: commands run only in a working tree */
  "REPOSITORY_REQUIRED",
  /** the command ran past its time limit and was stopped */
  "COMMAND_TIMEOUT",
  /** the command exited non-zero (its output is in the result) */
  "COMMAND_FAILED",
  /** the command went past a limit of its sandbox other than time (memory, processes, file size, disk), named */
  "COMMAND_LIMIT_EXCEEDED",
  // model behaviour
  "UNKNOWN_TOOL",
  "INVALID_TOOL_CALL",
  "MAX_ITERATIONS",
  "SUBAGENT_LIMIT",
  /** one model answer passed MODEL_ANSWER_MAX_BYTES, or a turn's answers TURN_OUTPUT_MAX_BYTES: cut there, the turn stopped */
  "MODEL_OUTPUT_TOO_LARGE",
  // agent start
  "AGENT_INIT_FAILED",
  // upstream model
  "MODEL_NOT_CONFIGURED",
  "MODEL_UNAVAILABLE",
  "MODEL_RATE_LIMITED",
  "MODEL_TIMEOUT",
  "UPSTREAM_INTERRUPTED",
  // system
  "CANCELLED",
  "TURN_TIMEOUT",
  "SERVICE_UNAVAILABLE",
  "SERVICE_TIMEOUT",
  "BUSY",
  /** every orchestrator is busy: a queued turn was not taken within the pickup limit (retry later) */
  "OVERLOADED",
  "INTERNAL",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The error shape of every NATS reply, tool result and HTTP/WS error body. */
export const ErrorBody = z.object({
  code: ErrorCode,
  message: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ErrorReply = z.object({
  success: z.literal(false),
  error: ErrorBody,
});
export type ErrorReply = z.infer<typeof ErrorReply>;
