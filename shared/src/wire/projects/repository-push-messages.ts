import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { BranchName } from "./branch-messages.js";
import { projectIdSchema, userNameSchema } from "./project-record.js";

/*
 * The owner's push of a branch to the remote the repository was cloned from (docs/repositories.md "Pushing to the
 * remote", docs/api.md): never the model's (no tool asks for it).
 */

/** `POST /api/projects/:id/repository/push`: the branch to push, any branch of the repository (`chat/<id>` too). */
export const RepositoryPushBody = z.object({ branch: BranchName }).strict();

/**
 * gateway → tool-runner on `project.repository.push`; the gateway has checked that `user` owns the project.
 * `wait_ms`: how long the gateway waits for the answer, so the push is stopped in time to be answered.
 */
export const RepositoryPushRequest = RepositoryPushBody.extend({ project_id: projectIdSchema, user: userNameSchema, wait_ms: z.number().int().positive() });

/** What was pushed: the branch's commit, to the remote's URL (never a credential); `up-to-date` when the remote had it already. */
export const RepositoryPushed = z.object({
  branch: z.string(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  remote: z.object({ url: z.string() }),
  pushed: z.union([z.literal(true), z.literal("up-to-date")]),
});
export type RepositoryPushed = z.infer<typeof RepositoryPushed>;

export const RepositoryPushReply = z.union([RepositoryPushed.extend({ success: z.literal(true) }), ErrorReply]);
export type RepositoryPushReply = z.infer<typeof RepositoryPushReply>;
