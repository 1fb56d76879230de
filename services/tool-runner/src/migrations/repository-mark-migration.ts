import type { FileStore } from "../store/file-store.js";
import type { LoadedIndex, RepositoryMark } from "../store/space-index.js";

/**
 * Writes the repository mark of a project whose index has none (docs/repositories.md "The index's mark"): one written by
 * a tool-runner from before the mark, or made by a file write, which does not ask the repositories' bucket.
 * `learnt` is the bucket's answer (the repository's generation, or null), read after `index`; it is written by
 * compare-and-set from the index as it was read, so an attach that marked it meanwhile, or a detach that unmarked
 * it, wins, and this one call goes on with what it read. Best effort: a mark not written is learnt again next time.
 */
export async function learnRepositoryMark(files: Pick<FileStore, "markRepository">, project: string, index: LoadedIndex, learnt: RepositoryMark): Promise<void> {
  await files.markRepository(project, (current) => (current.repository === undefined ? learnt : undefined), index.kvRevision).catch(() => false);
}
