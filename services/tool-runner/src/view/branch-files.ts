import { AppError } from "@agent-orchestrator/shared/runtime";
import { LRUCache } from "lru-cache";
import { maxBranchFilesPage, type BranchFileListing, type BranchFileReply, type BranchFilesReply } from "@agent-orchestrator/shared/wire";
import { blobStream } from "../git/index.js";
import { gitServiceTimeoutMs } from "../git-http/git-http-deps.js";
import type { TransitBodies } from "../git-http/transit-bodies.js";
import { jsonBytes, fitContentsToBudget } from "../reply-budget.js";
import type { Repositories, TreeFile } from "../repository/index.js";
import { decodeText } from "../sandbox/text-content.js";
import { checkedSpacePath } from "../store/space-path.js";
import { shownTree, type ShownTree } from "./shown-tree.js";
import { TreeFiles } from "./tree-files.js";
import { branchFileListing as listing, viewedFile, hiddenFromView } from "./view-listing.js";

/** A state's files as the files API lists them, in path order, with their bytes and the names left out. */
interface SortedListing {
  files: BranchFileListing[];
  bytes: number;
  unservable: number;
}

// files kept in all: the sorted lists of a few large states, each asked for a page at a time
const maxKeptListings = 300_000;

// a text shown in the files view is cut to fit one reply anyway: a larger blob is not decoded whole
const maxReadBlobBytes = 16 * 1024 * 1024;

/**
 * A project's repository as the files API shows it (docs/repositories.md "The files API on a repository"): one
 * branch's files as the tools see them (regular files with names the tools open, no protected name, not BMAD's
 * install places, which the installed files cover read-only as for a project without a repository), its files read
 * as text or sent as bytes. Without a branch, the default branch's last commit (what a clone gets); a branch a chat
 * works on shows its working tree, uncommitted changes included (what the chat's next turn sees); any other branch
 * its last commit. Every answer names the branch and the commit. Null where the project has no repository.
 */
export class BranchFiles {
  private readonly listings = new LRUCache<string, SortedListing>({ maxSize: maxKeptListings, sizeCalculation: (sorted) => sorted.files.length + 1 });

  constructor(
    private readonly repositories: Repositories,
    private readonly bodies: Pick<TransitBodies, "send">,
    private readonly replyBudget: () => number,
    /** the filtered lists of trees, shared with the archive */
    private readonly listed = new TreeFiles(),
  ) {}

  /**
   * A page of the branch's files, by path as strings compare: those after `after`, at most `limit`, as many as fit
   * one reply; `next_after` names where the next page starts (docs/repositories.md "The files API on a repository").
   */
  async list(request: { project_id: string; branch?: string | undefined; prefix?: string | undefined; after?: string | undefined; limit?: number | undefined }): Promise<BranchFilesReply> {
    const shown = await shownTree(this.repositories, request.project_id, request.branch);
    if (!shown) return { success: true, files: null };
    const prefix = request.prefix === undefined || request.prefix === "" ? "" : `${checkedSpacePath(request.prefix.replace(/\/+$/, ""))}/`;
    const { repository: _repository, files: root, ...point } = shown;
    const { files, bytes, unservable } = await this.sorted(shown, prefix);
    const after = request.after;
    const from = after === undefined ? 0 : firstAfter(files, after);
    const limit = request.limit ?? maxBranchFilesPage;
    const page = { ...point, files: [] as BranchFileListing[], bytes, unservable_names: unservable, tree: root };
    const budget = this.replyBudget();
    // room for the page's frame with the longest cursor it may carry
    let room = budget - jsonBytes({ success: true, files: { ...page, truncated: true, next_after: "x".repeat(1024) } });
    let at = from;
    for (; at < files.length && page.files.length < limit; at++) {
      const file = files[at] as BranchFileListing;
      room -= jsonBytes(file) + 1;
      if (room < 0) break;
      page.files.push(file);
    }
    if (at >= files.length) return { success: true, files: page };
    // a large repository's list comes in pages; `bytes` counts every file of every page
    const last = page.files.at(-1)?.path ?? after;
    return { success: true, files: { ...page, truncated: true, ...(last === undefined ? {} : { next_after: last }) } };
  }

  /**
   * The files of a state under `prefix`, listed as the view lists them and sorted by path, kept per tree: a large
   * repository's list comes in pages, and each page of one tree slices the same list.
   */
  private async sorted(shown: ShownTree, prefix: string): Promise<SortedListing> {
    const key = `${shown.files}\0${prefix}`;
    const known = this.listings.get(key);
    if (known) return known;
    const { repository, files: root } = shown;
    const all = (await repository.reader.files(root)).filter((file) => file.path.startsWith(prefix) && !hiddenFromView(file.path));
    // git orders a tree's entries its own way (a folder as `name/`); a cursor needs the order strings compare in
    const files = (await this.listed.list({ repository, state: { files: root } })).filter((file) => file.path.startsWith(prefix)).map(listing).sort(byPath);
    const sorted = { files, bytes: files.reduce((sum, file) => sum + file.size, 0), unservable: all.length - files.length };
    this.listings.set(key, sorted);
    return sorted;
  }

  /** One file as text cut to fit a reply (BINARY_FILE when it is not text), or with `download` its bytes. */
  async read(request: { project_id: string; branch?: string | undefined; path: string; download?: boolean | undefined }): Promise<BranchFileReply> {
    const shown = await shownTree(this.repositories, request.project_id, request.branch);
    if (!shown) return { success: true, file: null };
    const path = checkedSpacePath(request.path);
    const { repository, files: root, ...point } = shown;
    const file = await viewedFile(repository.reader, root, path);
    if (!file) throw new AppError("FILE_NOT_FOUND", `File not found on ${point.branch}: ${path}`);
    const listed = listing(file);
    if (request.download === true) {
      // streamed from git as it reads the blob (its pack is here: its size was read above), never held whole
      return { success: true, file: { ...point, file: listed, body: await this.bodies.send(blobStream(repository.local.place, file.id, gitServiceTimeoutMs)) } };
    }
    if (file.size > maxReadBlobBytes) {
      throw new AppError("FILE_TOO_LARGE", `${path} is ${file.size} bytes; download it (?download) to read it`);
    }
    const content = decodeText(await repository.reader.blob(file.id));
    if (content === undefined) throw new AppError("BINARY_FILE", `Binary file: ${path}; only text files can be shown (download it with ?download)`);
    const shownFile = { ...point, file: listed, content, truncated: false };
    const reply = { success: true as const, file: shownFile };
    fitContentsToBudget(reply, [shownFile], this.replyBudget());
    return reply;
  }
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** The position of the first file whose path comes after `after` (files sorted by path). */
function firstAfter(files: readonly { path: string }[], after: string): number {
  let low = 0;
  let high = files.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((files[middle] as { path: string }).path <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
