import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { subjectTokenPattern } from "../subjects.js";

/** A project's git repository as clients see it (docs/repositories.md "What a user does"); never its credential. */
export const RepositoryView = z.object({
  default_branch: z.string(),
  remote: z.object({ url: z.string(), branch: z.string().optional() }).nullable(),
  /** a credential for the remote is kept (it is never shown) */
  has_credential: z.boolean(),
  created_at: z.string(),
  created_by: z.string(),
  branches: z.array(z.object({ name: z.string(), head: z.string() })),
  /** how many tags it has */
  tags: z.number().int().nonnegative(),
  /** the working trees of branches that chats changed: `clean` when the files and the index are the branch's last commit */
  working_trees: z.array(z.object({ branch: z.string(), head: z.string(), clean: z.boolean(), updated_at: z.string() })),
});
export type RepositoryView = z.infer<typeof RepositoryView>;

/**
 * `PUT /api/projects/:id/repository` with a JSON body: clone from `url` (https). `credential` (a token or password
 * for HTTP basic authentication, with `username`, default `x-access-token`) is kept as a secret.
 */
export const RepositoryCloneBody = z
  .object({
    url: z.string().min(1).max(2048),
    branch: z.string().min(1).max(255).optional(),
    username: z.string().min(1).max(255).regex(/^[^:\s]+$/, "a user name without spaces or colons").optional(),
    credential: z.string().min(1).max(4096).regex(/^[^\r\n]+$/, "one line").optional(),
  })
  .strict();
export type RepositoryCloneBody = z.infer<typeof RepositoryCloneBody>;

const ProjectId = z.string().regex(subjectTokenPattern);

/** gateway → tool-runner on `project.repository.import`: a staged git bundle becomes the project's repository. */
export const RepositoryImportRequest = z.object({ project_id: ProjectId, staged: z.string().regex(subjectTokenPattern), user: z.string() });

/** gateway → tool-runner on `project.repository.clone`. */
export const RepositoryCloneRequest = RepositoryCloneBody.extend({ project_id: ProjectId, user: z.string() });

/** gateway → tool-runner on `project.repository.get` and `project.repository.detach`. */
export const RepositoryRequest = z.object({ project_id: ProjectId });

export const RepositoryReply = z.union([z.object({ success: z.literal(true), repository: RepositoryView.nullable() }), ErrorReply]);
export type RepositoryReply = z.infer<typeof RepositoryReply>;
