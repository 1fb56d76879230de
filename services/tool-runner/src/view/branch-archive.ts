import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { BranchArchiveReply } from "@agent-orchestrator/shared/wire";
import { encodeTree, gitOutputStream, writeLooseObject } from "../git/index.js";
import { gitServiceTimeoutMs } from "../git-http/git-http-deps.js";
import type { TransitBodies } from "../git-http/transit-bodies.js";
import type { Repositories } from "../repository/index.js";
import { filteredTree } from "./filtered-tree.js";
import { shownTree } from "./shown-tree.js";
import type { TreeFiles } from "./tree-files.js";

/**
 * A branch of a project's repository as a zip for `GET /api/projects/:id/archive` (docs/repositories.md "The files
 * API on a repository"): the files the files API lists on that state (no link, submodule, protected name or
 * install place), made by the host's hardened `git archive` from a tree that holds only those, and streamed into
 * the uploads store as git makes it, so neither side holds the zip in memory. Null where the project has no repository.
 */
export class BranchArchive {
  constructor(
    private readonly repositories: Repositories,
    private readonly bodies: Pick<TransitBodies, "send">,
    private readonly listed: TreeFiles,
  ) {}

  async archive(request: { project_id: string; branch?: string | undefined }): Promise<BranchArchiveReply> {
    const shown = await shownTree(this.repositories, request.project_id, request.branch);
    if (!shown) return { success: true, archive: null };
    const { repository, files: root, ...point } = shown;
    // listing reads every blob's size, so every pack the archive needs is here before git runs
    const keep = new Set((await this.listed.list({ repository, state: { files: root } })).map((file) => file.path));
    // the trees of what is left out are written apart from the cache's objects, and go with the archive
    const scratch = path.join(repository.local.folder, `archive-${randomUUID()}`);
    await mkdir(scratch, { recursive: true });
    try {
      const tree = (await filteredTree(repository.reader, root, keep, scratch)) ?? (await writeLooseObject(scratch, "tree", encodeTree([])));
      const place = { gitDir: repository.local.gitDir, objectDirectory: scratch, alternates: [repository.local.objectDirectory] };
      const body = await this.bodies.send(gitOutputStream(place, ["archive", "--format=zip", tree], gitServiceTimeoutMs));
      return { success: true, archive: { ...point, body } };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}
