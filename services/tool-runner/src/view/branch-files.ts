import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { branchRef, type BranchFileListing, type BranchFileReply, type BranchFilesReply, type BranchPoint } from "@agent-orchestrator/shared/wire";
import type { TransitBodies } from "../git-http/transit-bodies.js";
import { isProtectedSegment } from "../paths/protected-names.js";
import { isServablePath } from "../paths/servable-name.js";
import { jsonBytes, fitContentsToBudget } from "../reply-budget.js";
import type { AttachedRepository, Repositories, TreeFile } from "../repository/index.js";
import { decodeText } from "../sandbox/text-content.js";
import { checkedSpacePath } from "../store/space-path.js";
import { TreeFiles } from "./tree-files.js";

/** One state of a repository the files API shows: which branch and commit, and the root of its files. */
interface ShownTree extends BranchPoint {
  repository: AttachedRepository;
  files: string;
}

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
  private readonly listed = new TreeFiles();

  constructor(
    private readonly repositories: Repositories,
    private readonly bodies: Pick<TransitBodies, "send">,
    private readonly replyBudget: () => number,
  ) {}

  async list(request: { project_id: string; branch?: string | undefined; prefix?: string | undefined }): Promise<BranchFilesReply> {
    const shown = await this.shown(request.project_id, request.branch);
    if (!shown) return { success: true, files: null };
    const prefix = request.prefix === undefined || request.prefix === "" ? "" : `${checkedSpacePath(request.prefix.replace(/\/+$/, ""))}/`;
    const { repository, files: root, ...point } = shown;
    const all = (await repository.reader.files(root)).filter((file) => file.path.startsWith(prefix) && !hiddenFromView(file.path));
    const files = (await this.listed.list({ repository, state: { files: root } })).filter((file) => file.path.startsWith(prefix)).map(listing);
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    const listed = { ...point, files, bytes, unservable_names: all.length - files.length };
    // a large repository's list is cut to fit one reply; `bytes` still counts every file
    const budget = this.replyBudget();
    if (jsonBytes({ success: true, files: listed }) <= budget) return { success: true, files: listed };
    let room = budget - jsonBytes({ success: true, files: { ...listed, files: [], truncated: true } });
    const kept: BranchFileListing[] = [];
    for (const file of files) {
      room -= jsonBytes(file) + 1;
      if (room < 0) break;
      kept.push(file);
    }
    return { success: true, files: { ...listed, files: kept, truncated: true } };
  }

  /** One file as text cut to fit a reply (BINARY_FILE when it is not text), or with `download` its bytes. */
  async read(request: { project_id: string; branch?: string | undefined; path: string; download?: boolean | undefined }): Promise<BranchFileReply> {
    const shown = await this.shown(request.project_id, request.branch);
    if (!shown) return { success: true, file: null };
    const path = checkedSpacePath(request.path);
    const { repository, files: root, ...point } = shown;
    const notFound = () => new AppError("FILE_NOT_FOUND", `File not found on ${point.branch}: ${path}`);
    // what the view lists is what it reads: no link or submodule (never followed), protected name or install place
    const found = hiddenFromView(path) || !isServablePath(path) ? undefined : await repository.reader.lookup(root, path);
    if (found?.found !== "entry" || (found.entry.kind !== "file" && found.entry.kind !== "executable")) throw notFound();
    const file: TreeFile = { path, id: found.entry.id, kind: found.entry.kind, size: await repository.reader.size(found.entry.id) };
    const listed = listing(file);
    if (request.download === true) {
      const bytes = await repository.reader.blob(file.id);
      return { success: true, file: { ...point, file: listed, body: await this.bodies.send(chunked(bytes)) } };
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

  /** The state to show, or undefined when the project has no repository; BRANCH_NOT_FOUND for a branch it lacks. */
  private async shown(project: string, branch: string | undefined): Promise<ShownTree | undefined> {
    const repository = await this.repositories.attached(project);
    if (!repository) return undefined;
    const { bucket, record, reader } = repository;
    const name = branch ?? record.default_branch;
    if (branch !== undefined) {
      const stored = await bucket.treeState(project, record.generation, branch);
      if (stored.value) return { repository, branch, commit: stored.value.head, working_tree: true, files: stored.value.files };
    }
    const ref = branchRef(name);
    const head = ref === undefined ? undefined : ((await bucket.refs(project, record.generation)).value?.refs ?? []).find((one) => one.name === ref);
    if (!head) throw new AppError("BRANCH_NOT_FOUND", `The repository has no branch ${name} (a chat's branch is made by its first change)`);
    return { repository, branch: name, commit: head.id, working_tree: false, files: await reader.commitTree(head.id) };
  }
}

/** Paths the view never shows: BMAD's install places (the installed files cover them) and protected names. */
function hiddenFromView(path: string): boolean {
  return isInstallPlace(path) || path.split("/").some(isProtectedSegment);
}

function listing(file: TreeFile): BranchFileListing {
  return { path: file.path, size: file.size, blob: file.id, executable: file.kind === "executable", read_only: true };
}

async function* chunked(bytes: Buffer): AsyncGenerator<Buffer> {
  const chunk = 128 * 1024;
  for (let at = 0; at < bytes.length; at += chunk) yield bytes.subarray(at, at + chunk);
}
