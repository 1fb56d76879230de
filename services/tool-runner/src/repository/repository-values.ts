import { FileAuthor } from "@agent-orchestrator/shared/wire";
import { z } from "zod";

/** A git object id (sha1, 40 hex). */
export const ObjectId = z.string().regex(/^[0-9a-f]{40}$/);

/** A fresh id at every attach, in every key of the repository, so an attach after a detach meets no leftover. */
export const Generation = z.string().regex(/^[0-9a-f]{16}$/);

/** `repo.<project>`: the repository's record; its creation is the attach, its removal the detach. */
export const RepositoryRecord = z.object({
  generation: Generation,
  default_branch: z.string(),
  /** the remote it was cloned from (never a credential: that is in its own bucket) */
  remote: z.object({ url: z.string(), branch: z.string().optional(), username: z.string().optional() }).nullable(),
  has_credential: z.boolean(),
  created_at: z.string(),
  created_by: z.string(),
});
export type RepositoryRecord = z.infer<typeof RepositoryRecord>;

/** A pack as git names it (`pack-<sha1 of the pack>`). */
export const PackName = z.string().regex(/^pack-[0-9a-f]{40}$/);

/** `packs.<project>.<generation>`: the packs that hold the repository's objects; only ever appended to. */
export const PackList = z.object({ packs: z.array(z.object({ name: PackName, bytes: z.number().int().nonnegative() })) });
export type PackList = z.infer<typeof PackList>;

/** `refs.<project>.<generation>`: every branch and tag with its object, moved together by compare-and-set. */
export const RefsValue = z.object({ refs: z.array(z.object({ name: z.string(), id: ObjectId })) });
export type RefsValue = z.infer<typeof RefsValue>;

/** Who holds a working tree for a command, until when (ms since the epoch). */
export const TreeLease = z.object({ holder: z.string(), until: z.number() });
export type TreeLease = z.infer<typeof TreeLease>;

/**
 * `tree.<project>.<generation>.<branch, base64url>`: a working tree's state between turns (docs/repositories.md
 * "Branches and working trees"): the commit HEAD names, the index and the files as git trees.
 */
export const TreeState = z.object({
  branch: z.string(),
  head: ObjectId,
  /** HEAD is not on `branch` but at `head` (a command checked out another commit) */
  detached: z.boolean(),
  /**
   * the commit the working tree started from: its branch's (or the default branch's) last commit when the chat
   * first changed it; what the diff of a chat's work starts at. States stored before it have none.
   */
  base: ObjectId.optional(),
  /** the branch's commit when HEAD is detached (else `head`) */
  branch_head: ObjectId.optional(),
  /** the index (staged) as a tree */
  index: ObjectId,
  /** the files (everything git does not ignore) as a tree */
  files: ObjectId,
  file_count: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  updated_at: z.string(),
  updated_by: FileAuthor,
  lease: TreeLease.optional(),
});
export type TreeState = z.infer<typeof TreeState>;

export function recordKey(project: string): string {
  return `repo.${project}`;
}

export function packListKey(project: string, generation: string): string {
  return `packs.${project}.${generation}`;
}

export function refsKey(project: string, generation: string): string {
  return `refs.${project}.${generation}`;
}

/** The key of a branch's working tree; branch names hold characters KV keys may not, so the name is base64url. */
export function treeKey(project: string, generation: string, branch: string): string {
  return `${treePrefix(project, generation)}.${Buffer.from(branch, "utf8").toString("base64url")}`;
}

export function treePrefix(project: string, generation: string): string {
  return `tree.${project}.${generation}`;
}

/** The Object Store name of a pack's file (`.pack` or `.idx`). */
export function packObjectName(project: string, generation: string, pack: string, extension: "pack" | "idx"): string {
  return `${project}.${generation}.${pack}.${extension}`;
}
