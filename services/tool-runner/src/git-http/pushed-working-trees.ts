import { randomUUID } from "node:crypto";
import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { AttachedRepository } from "../repository/index.js";
import type { TreeState } from "../repository/repository-values.js";
import { zeroId, type PushCommand } from "./push-commands.js";

interface HeldTree {
  command: PushCommand;
  state: TreeState;
  revision: number;
}

/**
 * The working trees on the branches a push moves (docs/repositories.md "Plain git over HTTP"). A chat's working
 * tree is the state of its branch; a push to that branch is taken the way git's `receive.denyCurrentBranch =
 * updateInstead` takes a push to a checked-out branch: refused while a command of the chat runs in it (its lease is
 * held: the turn is running) or while it has changes not committed, and otherwise the working tree moves to the
 * pushed commit, so the chat's next turn works on what the person pushed. While the refs move, the push holds the
 * working tree's lease, so no command or file write lands in it meanwhile.
 */
export class PushedWorkingTrees {
  private readonly held = new Map<string, HeldTree>();
  private readonly holder = `push:${randomUUID()}`;

  constructor(
    private readonly repository: AttachedRepository,
    private readonly settings: { leaseMs: number; now: () => Date },
    private readonly logger: Logger,
  ) {}

  /** Holds the working trees of `commands`' branches; returns the reason for each command that may not move its branch. */
  async hold(commands: readonly PushCommand[]): Promise<Map<string, string>> {
    const refused = new Map<string, string>();
    const { bucket, project, record, reader } = this.repository;
    for (const command of commands) {
      if (!command.ref.startsWith("refs/heads/")) continue;
      const stored = await bucket.treeState(project, record.generation, command.ref.slice("refs/heads/".length));
      const state = stored.value;
      if (!state) continue;
      if (state.lease && state.lease.until > Date.now()) {
        refused.set(command.ref, "a chat's turn is running a command in this branch's working tree; push again when it has finished");
        continue;
      }
      if (command.new === zeroId) {
        refused.set(command.ref, "a chat works on this branch; it cannot be deleted");
        continue;
      }
      const headTree = await reader.commitTree(state.head);
      if (state.detached || state.files !== headTree || state.index !== headTree) {
        refused.set(command.ref, "this branch's working tree has changes not committed by its chat; push to another branch");
        continue;
      }
      const leased = { ...state, lease: { holder: this.holder, until: Date.now() + this.settings.leaseMs } };
      const revision = await bucket.putTreeState(project, record.generation, leased, stored.revision);
      if (revision === false) {
        refused.set(command.ref, "this branch's working tree is being changed; push again");
        continue;
      }
      this.held.set(command.ref, { command, state: leased, revision });
    }
    return refused;
  }

  /** Moves each held working tree whose branch moved (in `moved`) to its new commit, and gives every lease back. */
  async release(moved: ReadonlySet<string>, user: string): Promise<void> {
    const { bucket, project, record, reader } = this.repository;
    for (const [ref, held] of this.held) {
      const { lease: _lease, ...state } = held.state;
      let next: TreeState = state;
      if (moved.has(ref)) {
        const tree = await reader.commitTree(held.command.new);
        const summary = await reader.summary(tree);
        next = { ...state, head: held.command.new, index: tree, files: tree, file_count: summary.files, bytes: summary.bytes, updated_at: this.settings.now().toISOString(), updated_by: { user } };
      }
      const stored = await bucket.putTreeState(project, record.generation, next, held.revision).catch(() => false as const);
      // the lease expires; the working tree stays at the commit it had, behind its branch
      if (stored === false) this.logger.warn({ project_id: project, ref }, "a pushed branch's working tree could not be moved to the pushed commit");
    }
    this.held.clear();
  }
}
