import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { subjectTokenPattern } from "../subjects.js";
import { projectIdSchema, userNameSchema } from "./project-record.js";
import { ChatBranchName, branchRef } from "./ref-name.js";

/*
 * What a project's repository shows of its branches and of a chat's work (docs/repositories.md "A chat's work",
 * docs/api.md): a branch's commits, the changes of a chat since it started, the discard of its uncommitted ones.
 */

const ObjectId = z.string().regex(/^[0-9a-f]{40}$/);
const SessionId = z.string().regex(subjectTokenPattern);

/** The longest commit body shown (a commit's whole message stays in the repository). */
export const maxShownBodyChars = 2000;
/** The most commits one page of a branch's history holds. */
export const maxCommitsPage = 100;

/** An author or committer of a commit. */
export const CommitPersonView = z.object({ name: z.string(), email: z.string(), at: z.string() });

/** A commit as the API shows it: `agent_id` and `chat_id` from its `Agent:` and `Chat:` trailers, when it has them. */
export const CommitView = z.object({
  id: ObjectId,
  parents: z.array(ObjectId),
  author: CommitPersonView,
  committer: CommitPersonView,
  subject: z.string(),
  /** the message after its subject, cut to `maxShownBodyChars` */
  body: z.string(),
  agent_id: z.string().optional(),
  chat_id: z.string().optional(),
});
export type CommitView = z.infer<typeof CommitView>;

/** Any branch of the repository, by its short name (`main`, `chat/<chat id>`). */
export const BranchName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => branchRef(name) !== undefined, { message: "not a branch name of this repository" });

/** `GET /api/projects/:id/repository/branches/:branch/commits` query. */
export const BranchCommitsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(maxCommitsPage).default(50),
    skip: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

/** gateway → tool-runner on `project.repository.commits`: a page of a branch's commits, newest first. */
export const BranchCommitsRequest = z.object({ project_id: projectIdSchema, branch: BranchName, limit: z.number().int().min(1).max(maxCommitsPage), skip: z.number().int().min(0) });

export const BranchCommitsReply = z.union([
  z.object({
    success: z.literal(true),
    branch: z.string(),
    head: ObjectId,
    commits: z.array(CommitView),
    /** more commits follow: ask again with `skip` past this page */
    more: z.boolean(),
  }),
  ErrorReply,
]);
export type BranchCommitsReply = z.infer<typeof BranchCommitsReply>;

/** How a file changed. */
export const FileChange = z.enum(["added", "modified", "deleted", "type_changed"]);

/** A file a chat's work changed, since its base commit. */
export const ChangedFile = z.object({
  path: z.string(),
  change: FileChange,
  /** lines added and removed; 0 and 0 for a binary file */
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  binary: z.boolean(),
  /** it differs between HEAD's commit and the working tree: not committed (yet) */
  uncommitted: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/**
 * A chat's work (docs/repositories.md "A chat's work"): from the commit its working tree started from (`base`) to
 * its working tree, uncommitted changes included: the commits since `base` on HEAD, the files changed, and the
 * unified diff (`patch`, null when larger than the server shows at once; ask for one `path` then).
 */
export const ChatChanges = z.object({
  branch: z.string(),
  base: ObjectId,
  head: ObjectId,
  detached: z.boolean(),
  /** nothing uncommitted: the files and the index are HEAD's commit */
  clean: z.boolean(),
  commits: z.array(CommitView),
  commits_truncated: z.boolean(),
  files: z.array(ChangedFile),
  files_truncated: z.boolean(),
  patch: z.string().nullable(),
  patch_truncated: z.boolean(),
});
export type ChatChanges = z.infer<typeof ChatChanges>;

/** `GET /api/sessions/:id/changes` query: `path`, the diff of that one file. */
export const ChatChangesQuery = z.object({ path: z.string().min(1).max(4096).optional() }).strict();

/** gateway → tool-runner on `project.repository.branch` and `project.repository.changes`: a chat's working tree. */
export const ChatTreeRequest = z.object({
  project_id: projectIdSchema,
  session_id: SessionId,
  /** the branch the chat was started on; absent: `chat/<session_id>` */
  branch: ChatBranchName.optional(),
  path: ChatChangesQuery.shape.path,
});

/** gateway → tool-runner on `project.repository.discard`: who discards (the working tree's `updated_by`). */
export const ChatDiscardRequest = ChatTreeRequest.omit({ path: true }).extend({ user: userNameSchema });

/** `changes: null`: the project has no repository. */
export const ChatChangesReply = z.union([z.object({ success: z.literal(true), changes: ChatChanges.nullable() }), ErrorReply]);
export type ChatChangesReply = z.infer<typeof ChatChangesReply>;

/** On `project.repository.branch`: the branch the chat works on, or null when its project has no repository. */
export const ChatBranchReply = z.union([z.object({ success: z.literal(true), branch: z.string().nullable() }), ErrorReply]);
export type ChatBranchReply = z.infer<typeof ChatBranchReply>;
