import path from "node:path";
import type { InstalledFileListing, InstalledFileReadReply, InstalledFilesListReply } from "@agent-orchestrator/shared/wire";
import type { Sandbox, SandboxContext } from "./sandbox/index.js";
import { catalogueOf } from "./view/file-catalogue.js";
import { checkedSpacePath } from "./store/space-path.js";
import { fitContentsToBudget } from "./reply-budget.js";
import type { InstalledFile } from "./view/installed-files.js";
import { readableInstalledFiles } from "./view/readable-installed-files.js";

/**
 * A call that names no chat, project or bundle: the roots of an installed agent, every BMAD tree and skill folder.
 * Its project and chat are never read, since only installed files are served here.
 */
const installContext: SandboxContext = { session_id: "install", project_id: "install" };

// each index's listing sorted once: pages of a few thousand installed files are asked again and again
const sortedListings = new WeakMap<readonly InstalledFile[], readonly InstalledFileListing[]>();

/**
 * The installed BMAD files for the gateway (`project.files.installed_*`; docs/openai-api.md "Resources"): what
 * `{project-root}` shows read-only to an installed agent, listed from the sandbox's index of the install and read
 * through the sandbox's checks for installed files (`read_file`'s), never a project's or a chat's file. The
 * install is shared by every project, so the gateway asks no role first.
 */
export class InstallFiles {
  constructor(
    private readonly sandbox: Sandbox,
    private readonly replyBudget: () => number,
  ) {}

  /** The readable installed files after `after`, by path as strings compare, at most `limit`. */
  async list(request: { after?: string | undefined; limit: number }): Promise<InstalledFilesListReply> {
    const readable = readableInstalledFiles(await catalogueOf(this.sandbox).installed.list(), await this.sandbox.roots(installContext));
    const listings = this.sorted(readable);
    const after = request.after ?? "";
    let start = 0;
    // binary search: the first path after `after`
    for (let end = listings.length; start < end; ) {
      const middle = (start + end) >>> 1;
      if (listings[middle]!.path <= after) start = middle + 1;
      else end = middle;
    }
    const files = listings.slice(start, start + request.limit);
    return { success: true, files, more: start + files.length < listings.length };
  }

  /** One installed file as text; a path with `..`, an empty or a protected name fails before the disk is asked. */
  async read(request: { path: string }): Promise<InstalledFileReadReply> {
    const read = await this.sandbox.readInstalledOnly(installContext, checkedSpacePath(request.path));
    const reply = { success: true as const, path: request.path, size: read.size, content: read.content, truncated: read.truncated };
    fitContentsToBudget(reply, [reply], this.replyBudget());
    return reply;
  }

  private sorted(files: readonly InstalledFile[]): readonly InstalledFileListing[] {
    const known = sortedListings.get(files);
    if (known) return known;
    const root = this.sandbox.projectRoot;
    const listings = files
      .map((file) => ({ path: path.relative(root, file.lexical).split(path.sep).join("/"), size: file.size, updated_at: new Date(file.mtimeMs).toISOString() }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    sortedListings.set(files, listings);
    return listings;
  }
}
