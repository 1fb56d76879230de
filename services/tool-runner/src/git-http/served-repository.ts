import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AttachedRepository } from "../repository/index.js";

/** A ref as the repository's refs value holds it. */
export interface ServedRef {
  name: string;
  id: string;
}

/** A repository git serves one request from: the refs of the moment and every object of the project. */
export interface ServedRepository {
  gitDir: string;
  refs: readonly ServedRef[];
  /** its folder of objects: a push's new pack lands in `objects/pack` */
  objectDirectory: string;
  remove(): Promise<void>;
}

/**
 * Makes, for one request, a bare repository that `git upload-pack` or `git receive-pack` can run on
 * (docs/repositories.md "Plain git over HTTP"): the refs in KV at this moment as its `packed-refs`, HEAD on the
 * default branch, and the project's objects through `objects/info/alternates` naming this replica's cache, brought
 * up to the pack list first (the pack list moves before the refs, so every object a ref read here names is in a
 * pack listed by then). Its config is the host's own, written here; nothing in it comes from a client.
 */
export async function serveRepository(attached: AttachedRepository): Promise<ServedRepository> {
  const { bucket, project, record, local } = attached;
  const refs = [...((await bucket.refs(project, record.generation)).value?.refs ?? [])].sort((a, b) => compareBytes(a.name, b.name));
  await local.sync();
  const gitDir = path.join(local.folder, `served-${randomUUID()}`);
  const objectDirectory = path.join(gitDir, "objects");
  try {
    await Promise.all(["objects/info", "objects/pack", "refs/heads", "refs/tags"].map((folder) => mkdir(path.join(gitDir, folder), { recursive: true, mode: 0o700 })));
    await Promise.all([
      writeFile(path.join(gitDir, "HEAD"), `ref: refs/heads/${record.default_branch}\n`),
      writeFile(path.join(gitDir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"),
      writeFile(path.join(objectDirectory, "info", "alternates"), `${local.objectDirectory}\n`),
      writeFile(path.join(gitDir, "packed-refs"), `# pack-refs with: sorted \n${refs.map((ref) => `${ref.id} ${ref.name}\n`).join("")}`),
    ]);
  } catch (error) {
    await rm(gitDir, { recursive: true, force: true });
    throw error;
  }
  return { gitDir, refs, objectDirectory, remove: () => rm(gitDir, { recursive: true, force: true }) };
}

/** git sorts refs by their bytes. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
