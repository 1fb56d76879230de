import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { AppError, KeyedQueue, type Logger } from "@agent-orchestrator/shared/runtime";
import { branchRef, chatBranch, type FileAuthor } from "@agent-orchestrator/shared/wire";
import type { CheckoutPlace } from "./checkout.js";
import { commitEnvironment, commitIdentity, commitMessageHook, refuseUnattributed } from "./commit-identity.js";
import { newCommits } from "./new-commits.js";
import type { AttachedRepository, Repositories } from "./repositories.js";
import { maxRounds } from "./repository-bucket.js";
import type { TreeState } from "./repository-values.js";
import type { TreeLookup } from "./tree-reader.js";
import { writeTree, type TreeChange } from "./tree-writer.js";

/** The working tree a chat works in: its project's repository, on the chat's branch. */
export interface ChatTree {
  project: string;
  session: string;
  /** the branch the chat was started on (docs/repositories.md "Branches and working trees"); absent: `chat/<session>` */
  branch?: string | undefined;
}

/** What a command's git gets to make commits the host keeps (docs/repositories.md "Commits by the model"). */
export interface CommitPlace {
  /** GIT_AUTHOR_* and GIT_COMMITTER_* naming the member whose turn it is: give them to the command's environment */
  environment: Readonly<Record<string, string>>;
}

/** Who runs a command, beyond the author of what it writes: the name their sign-in gave, for their commits. */
export interface CommandCaller {
  displayName?: string | undefined;
}

/** A working tree as one call sees it. */
export interface TreeView {
  repository: AttachedRepository;
  state: TreeState;
  /** the KV revision of the state; 0 while nothing is stored for it (the branch's or the default branch's last commit) */
  revision: number;
}

/** What a write of the tree's files left: the state it made and its KV revision. */
export interface TreeWritten {
  view: TreeView;
  revision: number;
}

/** What the limits of a working tree are (docs/repositories.md "Limits"). */
export interface WorkingTreeLimits {
  maxFiles: number;
  maxBytes: number;
  persistMaxBytes: number;
  leaseMs: number;
}

/** The working tree of a tool call's chat: its project, its id, and the branch it was started on (ToolContext). */
export function chatTreeOf(context: { project_id: string; session_id: string; branch?: string | undefined }): ChatTree {
  return { project: context.project_id, session: context.session_id, ...(context.branch === undefined ? {} : { branch: context.branch }) };
}

/** The branch a chat works on: the one it was started on, else `chat/<chat id>`. */
export function branchOf(chat: ChatTree): string {
  return chat.branch ?? chatBranch(chat.session);
}

/**
 * The working trees of chats (docs/repositories.md "Branches and working trees"): what the file tools read and
 * write, from and into the state's trees, and `withWorkingTree`, the one way a command gets the files on disk,
 * whose writes are durable before it returns. Every change moves the state by compare-and-set; a command holds
 * the state's lease while it runs, and a write meanwhile, on any replica, is BUSY.
 */
export class WorkingTrees {
  private readonly queue = new KeyedQueue();
  private readonly replica = randomUUID();

  constructor(
    private readonly repositories: Repositories,
    private readonly limits: WorkingTreeLimits,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The chat's working tree, or undefined when its project has no repository. */
  async view(chat: ChatTree): Promise<TreeView | undefined> {
    const repository = await this.repositories.attached(chat.project);
    if (!repository) return undefined;
    const branch = branchOf(chat);
    const { bucket, record, reader } = repository;
    const stored = await bucket.treeState(chat.project, record.generation, branch);
    if (stored.value) return { repository, state: stored.value, revision: stored.revision };
    // nothing stored: the branch's last commit, else the default branch's, which the first change forks from
    const refs = (await bucket.refs(chat.project, record.generation)).value?.refs ?? [];
    const head = refs.find((ref) => ref.name === `refs/heads/${branch}`) ?? refs.find((ref) => ref.name === `refs/heads/${record.default_branch}`);
    if (!head) throw new AppError("INTERNAL", "The repository's default branch is missing");
    const tree = await reader.commitTree(head.id);
    const state: TreeState = {
      branch,
      head: head.id,
      base: head.id,
      detached: false,
      index: tree,
      files: tree,
      file_count: 0,
      bytes: 0,
      updated_at: record.created_at,
      updated_by: { user: record.created_by },
    };
    return { repository, state, revision: 0 };
  }

  /** What `path` names in the view's files. */
  lookup(view: TreeView, path: string): Promise<TreeLookup> {
    return view.repository.reader.lookup(view.state.files, path);
  }

  /**
   * Changes the chat's files: `make` gets the working tree as it is and returns the changes (or throws to
   * refuse); they are written as a new files tree, stored, and the state moves by compare-and-set. When another
   * writer got there first, `make` runs again on the new state, so a change never lands on files it did not see.
   * The first change of a chat creates its branch at the commit its working tree started from.
   */
  async change(chat: ChatTree, make: (view: TreeView) => Promise<TreeChange[]>, author: FileAuthor): Promise<TreeWritten> {
    for (let round = 0; round < maxRounds; round += 1) {
      const view = await this.required(chat);
      this.refuseLeased(view.state);
      const changes = await make(view);
      const { local, reader } = view.repository;
      const incoming = path.join(local.folder, `write-${randomUUID()}`);
      await mkdir(incoming, { recursive: true });
      let files: string;
      try {
        files = await writeTree(reader, view.state.files, changes, incoming);
        await local.storeLoose(incoming, this.limits.persistMaxBytes);
      } finally {
        await rm(incoming, { recursive: true, force: true });
      }
      const next = await this.counted(view, { ...view.state, files, updated_at: this.now().toISOString(), updated_by: author });
      const revision = await view.repository.bucket.putTreeState(chat.project, view.repository.record.generation, next, view.revision);
      if (revision === false) continue;
      if (view.revision === 0) await this.createBranch(view.repository, next);
      return { view: { ...view, state: next, revision }, revision };
    }
    throw new AppError("BUSY", "The working tree is being changed by others all the time; try again");
  }

  /**
   * Runs `fn` with the chat's working tree on disk (docs/repositories.md "withWorkingTree"): takes the lease,
   * brings this replica's checkout to the state, runs `fn`, then stores what it changed (files, index, HEAD,
   * the branch, new objects) and moves the state, before it returns. If `fn` throws or a limit is broken,
   * nothing is kept and the checkout is made again from the state next time. `fn` gets the environment its git
   * makes commits with, and every new commit must name `author`'s member and carry the agent's and the chat's
   * trailers (COMMIT_REFUSED otherwise, nothing kept: docs/repositories.md "Commits by the model").
   */
  withWorkingTree<T>(chat: ChatTree, fn: (place: CheckoutPlace, commits: CommitPlace) => Promise<T>, author: FileAuthor, caller: CommandCaller = {}): Promise<T> {
    return this.queue.run(`${chat.project}/${branchOf(chat)}`, () => this.underLease(chat, fn, author, caller));
  }

  private async underLease<T>(chat: ChatTree, fn: (place: CheckoutPlace, commits: CommitPlace) => Promise<T>, author: FileAuthor, caller: CommandCaller): Promise<T> {
    const holder = `${this.replica}:${randomUUID()}`;
    let { view, revision } = await this.lease(chat, holder);
    const { project } = chat;
    const { bucket, record, local } = view.repository;
    let renewing: Promise<void> = Promise.resolve();
    let lost = false;
    const renew = setInterval(() => {
      renewing = renewing.then(async () => {
        const state = { ...view.state, lease: { holder, until: Date.now() + this.limits.leaseMs } };
        const moved = await bucket.putTreeState(project, record.generation, state, revision).catch(() => false as const);
        if (moved === false) lost = true;
        else revision = moved;
      });
    }, Math.max(1000, Math.floor(this.limits.leaseMs / 3)));
    const stopRenewing = async () => {
      clearInterval(renew);
      await renewing;
    };
    const identity = commitIdentity({ user: author.user, displayName: caller.displayName, agent: author.agent_id, chat: chat.session });
    // held while the command runs: the cache's sweep never removes it under the command
    const { checkout, release } = await this.repositories.cache.holdCheckout(local, view.state.branch);
    let refs: ReadonlyArray<{ name: string; id: string }> = [];
    try {
      // the packs other replicas stored since: the checkout is made from the state's trees
      await local.sync();
      await checkout.prepare(view.state);
      await checkout.writeHook("commit-msg", commitMessageHook(identity));
      refs = (await bucket.refs(project, record.generation)).value?.refs ?? [];
      await checkout.writeRefs(refs, view.state.branch);
      const result = await fn(checkout.place, { environment: commitEnvironment(identity) });
      await stopRenewing();
      if (lost) throw new AppError("BUSY", "The working tree's lease was lost while the command ran; nothing it changed was kept");
      const outcome = await checkout.persist(view.state, { maxNewBytes: this.limits.persistMaxBytes });
      const before = [view.state.head, view.state.branch_head ?? view.state.head];
      await refuseUnattributed(await newCommits(view.repository, [outcome.head, outcome.branchHead], before), identity);
      const { lease: _lease, ...held } = view.state;
      const next = await this.counted(view, {
        ...held,
        files: outcome.files,
        index: outcome.index,
        head: outcome.head,
        detached: outcome.detached,
        ...(outcome.detached ? { branch_head: outcome.branchHead } : {}),
        updated_at: this.now().toISOString(),
        updated_by: author,
      });
      if (!outcome.detached) delete next.branch_head;
      const stored = await bucket.putTreeState(project, record.generation, next, revision);
      if (stored === false) throw new AppError("BUSY", "The working tree's lease was lost while the command ran; nothing it changed was kept");
      await this.moveBranch(view.repository, next.branch, view.state.branch_head ?? view.state.head, outcome.branchHead);
      view = { ...view, state: next, revision: stored };
      return result;
    } catch (error) {
      await stopRenewing();
      await checkout.discard();
      await this.release(chat, holder).catch((releaseError: unknown) => this.logger.warn({ err: releaseError, project_id: project }, "a working tree's lease was not released; it expires"));
      throw error;
    } finally {
      release();
      this.wantSpare(view.repository, refs);
    }
  }

  /** A spare checkout of the default branch's last commit, for the project's next new chat here (docs/repositories.md "A spare checkout"). */
  private wantSpare(repository: AttachedRepository, refs: ReadonlyArray<{ name: string; id: string }>): void {
    const head = refs.find((ref) => ref.name === `refs/heads/${repository.record.default_branch}`);
    if (!head) return;
    void repository.reader.commitTree(head.id).then(
      (files) => this.repositories.cache.wantSpare(repository.local, files),
      (error: unknown) => this.logger.debug({ err: error, project_id: repository.project }, "no spare checkout: the default branch's tree was not read"),
    );
  }

  /**
   * Discards the chat's uncommitted changes (docs/repositories.md "A chat's work"): the files and the index become
   * HEAD's commit again, as `git reset --hard` and `git clean` would leave them; commits stay. BUSY while a command
   * holds the working tree. Undefined when nothing is stored for it (nothing to discard).
   */
  async discard(chat: ChatTree, author: FileAuthor): Promise<TreeView | undefined> {
    for (let round = 0; round < maxRounds; round += 1) {
      const view = await this.required(chat);
      if (view.revision === 0) return undefined;
      this.refuseLeased(view.state);
      const head = await view.repository.reader.commitTree(view.state.head);
      if (view.state.files === head && view.state.index === head) return view;
      const next = await this.counted(view, { ...view.state, files: head, index: head, updated_at: this.now().toISOString(), updated_by: author });
      const revision = await view.repository.bucket.putTreeState(chat.project, view.repository.record.generation, next, view.revision);
      if (revision !== false) return { ...view, state: next, revision };
    }
    throw new AppError("BUSY", "The working tree is being changed by others all the time; try again");
  }

  /** Takes the working tree's lease by compare-and-set; BUSY while another holds it. */
  private async lease(chat: ChatTree, holder: string): Promise<{ view: TreeView; revision: number }> {
    for (let round = 0; round < maxRounds; round += 1) {
      const view = await this.required(chat);
      this.refuseLeased(view.state);
      const state = { ...view.state, lease: { holder, until: Date.now() + this.limits.leaseMs } };
      const revision = await view.repository.bucket.putTreeState(chat.project, view.repository.record.generation, state, view.revision);
      if (revision === false) continue;
      if (view.revision === 0) await this.createBranch(view.repository, state);
      return { view: { ...view, state, revision }, revision };
    }
    throw new AppError("BUSY", "The working tree is being changed by others all the time; try again");
  }

  /** Gives the lease back (a command that failed), leaving the state as it was. */
  private async release(chat: ChatTree, holder: string): Promise<void> {
    for (let round = 0; round < maxRounds; round += 1) {
      const view = await this.view(chat);
      if (!view || view.state.lease?.holder !== holder) return;
      const { lease: _lease, ...state } = view.state;
      if ((await view.repository.bucket.putTreeState(chat.project, view.repository.record.generation, state, view.revision)) !== false) return;
    }
  }

  /** The state with its files counted, within REPOSITORY_MAX_FILES and REPOSITORY_MAX_BYTES. */
  private async counted(view: TreeView, state: TreeState): Promise<TreeState> {
    const summary = await view.repository.reader.summary(state.files);
    if (summary.files > this.limits.maxFiles) throw new AppError("QUOTA_EXCEEDED", `The working tree would hold ${summary.files} files; at most ${this.limits.maxFiles} (REPOSITORY_MAX_FILES). Nothing was kept.`);
    if (summary.bytes > this.limits.maxBytes) throw new AppError("QUOTA_EXCEEDED", `The working tree would hold ${summary.bytes} bytes; at most ${this.limits.maxBytes} (REPOSITORY_MAX_BYTES). Nothing was kept.`);
    return { ...state, file_count: summary.files, bytes: summary.bytes };
  }

  private async required(chat: ChatTree): Promise<TreeView> {
    const view = await this.view(chat);
    if (!view) throw new AppError("NOT_FOUND", "The project's repository was detached");
    return view;
  }

  private refuseLeased(state: TreeState): void {
    if (state.lease && state.lease.until > Date.now()) throw new AppError("BUSY", "A command is running in this working tree; try again when it has finished");
  }

  /** The chat's branch, made at the commit its working tree started from, unless it is there already. */
  private async createBranch(repository: AttachedRepository, state: TreeState): Promise<void> {
    const name = branchRef(state.branch);
    if (name === undefined) throw new AppError("INTERNAL", `Not a branch name git takes: ${state.branch}`);
    await repository.bucket.changeRefs(repository.project, repository.record.generation, (current) => {
      const refs = current?.refs ?? [];
      return refs.some((ref) => ref.name === name) ? { refs } : { refs: [...refs, { name, id: state.head }] };
    });
  }

  /** Moves the branch from `from` to `to` (a command's commit), unless someone else moved it meanwhile. */
  private async moveBranch(repository: AttachedRepository, branch: string, from: string, to: string): Promise<void> {
    if (from === to) return;
    const name = `refs/heads/${branch}`;
    await repository.bucket.changeRefs(repository.project, repository.record.generation, (current) => {
      const refs = current?.refs ?? [];
      const now = refs.find((ref) => ref.name === name);
      if (now !== undefined && now.id !== from) {
        this.logger.warn({ project_id: repository.project, branch }, "a branch moved while a command ran in its working tree; the command's commit stays in the working tree only");
        return { refs };
      }
      return { refs: [...refs.filter((ref) => ref.name !== name), { name, id: to }] };
    });
  }
}
