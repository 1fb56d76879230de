import { runGit } from "../git/git-command.js";
import type { AttachedRepository } from "./repositories.js";

/** A commit object as stored. */
export interface StoredCommit {
  id: string;
  content: Buffer;
}

/**
 * The commits reachable from `tips` that no branch or tag of the repository holds and that `known` (the working
 * tree's commits before a command) does not reach: what a command made, or brought from outside any ref. Read
 * from the host's own repository, after the command's objects were stored.
 */
export async function newCommits(repository: AttachedRepository, tips: readonly string[], known: readonly string[]): Promise<StoredCommit[]> {
  const { local, bucket, project, record } = repository;
  const unknown = tips.filter((tip) => !known.includes(tip));
  if (unknown.length === 0) return [];
  // the packs of a push that landed while the command ran, so every branch's commits are here
  await local.sync();
  const refs = (await bucket.refs(project, record.generation)).value?.refs ?? [];
  const excluded = [...new Set([...known, ...refs.map((ref) => ref.id)])].map((id) => `^${id}`);
  const input = `${[...new Set(unknown), ...excluded].join("\n")}\n`;
  const listed = await runGit({ ...local.place, args: ["rev-list", "--ignore-missing", "--stdin"], input });
  const ids = listed.stdout.toString("latin1").split("\n").filter((line) => line !== "");
  const commits: StoredCommit[] = [];
  for (const id of ids) commits.push({ id, content: (await local.read(id)).content });
  return commits;
}
