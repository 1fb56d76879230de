import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { BranchName, ChatTreeRequest } from "./branch-messages.js";
import { GitBody } from "./git-messages.js";
import { projectIdSchema } from "./project-record.js";

/*
 * The files of a project's repository as the files API shows them (docs/repositories.md "The files API on a
 * repository"): one branch's files, the default branch's last commit when none is named, a chat's working tree
 * (uncommitted changes included) when the branch is one a chat works on. Read-only: people change them with git.
 */

const ObjectId = z.string().regex(/^[0-9a-f]{40}$/);
const filePath = z.string().min(1).max(1024);

/** `?branch=` of the files routes: any branch of the repository by its short name (`main`, `chat/<chat id>`). */
export const BranchFilesQuery = z.object({ branch: BranchName.optional() });

/** Which state of the repository an answer shows. */
export const BranchPoint = z.object({
  branch: z.string(),
  /** the branch's last commit, or the commit the working tree's HEAD names */
  commit: ObjectId,
  /** a chat's working tree (its uncommitted changes included), not only the commit */
  working_tree: z.boolean(),
});
export type BranchPoint = z.infer<typeof BranchPoint>;

/** A file of a branch as the files API lists it: its git blob and size; every one is read-only through the API. */
export const BranchFileListing = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  /** the git blob id of its content */
  blob: ObjectId,
  executable: z.boolean(),
  read_only: z.literal(true),
});
export type BranchFileListing = z.infer<typeof BranchFileListing>;

/** Most files one page of `project.repository.files` lists (fewer when they do not fit one reply). */
export const maxBranchFilesPage = 50_000;

/**
 * gateway → tool-runner on `project.repository.files`: a page of a branch's files (the default branch without
 * `branch`), by path as strings compare, those after `after`, at most `limit`.
 */
export const BranchFilesRequest = z.object({
  project_id: projectIdSchema,
  branch: BranchName.optional(),
  prefix: z.string().max(1024).optional(),
  after: filePath.optional(),
  limit: z.number().int().min(1).max(maxBranchFilesPage).optional(),
});

/** `files: null`: the project has no repository (the gateway shows its stored files instead). */
export const BranchFilesReply = z.union([
  z.object({
    success: z.literal(true),
    files: BranchPoint.extend({
      files: z.array(BranchFileListing),
      bytes: z.number().int().nonnegative(),
      /** names left out because the tools could not open them, links and submodules included */
      unservable_names: z.number().int().nonnegative(),
      /** files were left out to fit one reply */
      truncated: z.boolean().optional(),
      /** the root tree listed: a next page of another tree means the branch moved between pages */
      tree: ObjectId,
      /** more files follow this page: ask again with `after` set to this */
      next_after: filePath.optional(),
    }).nullable(),
  }),
  ErrorReply,
]);
export type BranchFilesReply = z.infer<typeof BranchFilesReply>;

/** gateway → tool-runner on `project.repository.read`: one file of a branch as text, or (`download`) its bytes. */
export const BranchFileRequest = z.object({ project_id: projectIdSchema, branch: BranchName.optional(), path: filePath, download: z.boolean().optional() });

/** One file of a branch: its text cut to fit a reply, or its bytes in transit (docs/repositories.md "Plain git over HTTP" bodies). */
export const BranchFileReply = z.union([
  z.object({
    success: z.literal(true),
    file: BranchPoint.extend({
      file: BranchFileListing,
      content: z.string().optional(),
      truncated: z.boolean().optional(),
      body: GitBody.optional(),
    }).nullable(),
  }),
  ErrorReply,
]);
export type BranchFileReply = z.infer<typeof BranchFileReply>;

/**
 * gateway → tool-runner on `project.repository.stat`: files a chat message attaches, looked up in the chat's working
 * tree as its tools see it (its branch's stored state, else the branch's or the default branch's last commit).
 */
export const ChatFilesStatRequest = ChatTreeRequest.omit({ path: true }).extend({ paths: z.array(filePath).min(1).max(100) });

/** Each path's listing, or null where the chat's working tree has no file the tools open there; `files: null`: no repository. */
export const ChatFilesStatReply = z.union([
  z.object({ success: z.literal(true), files: z.array(BranchFileListing.nullable()).nullable() }),
  ErrorReply,
]);
export type ChatFilesStatReply = z.infer<typeof ChatFilesStatReply>;

/** gateway → tool-runner on `project.repository.archive`: a branch's files as a zip (the default branch without `branch`). */
export const BranchArchiveRequest = z.object({ project_id: projectIdSchema, branch: BranchName.optional() });

/** The zip in transit (GitBody), and which state it holds; `archive: null`: the project has no repository. */
export const BranchArchiveReply = z.union([
  z.object({ success: z.literal(true), archive: BranchPoint.extend({ body: GitBody }).nullable() }),
  ErrorReply,
]);
export type BranchArchiveReply = z.infer<typeof BranchArchiveReply>;
