import type { ChangedFile, ChatChanges } from "@agent-orchestrator/shared/wire";
import { GitFailed, runGit } from "../git/git-command.js";
import { commitLog } from "./commit-log.js";
import type { AttachedRepository } from "./repositories.js";
import type { TreeView } from "./working-trees.js";

/** How much of a chat's work one answer shows (it travels in one NATS message). */
export interface ChangesLimits {
  maxPatchBytes: number;
  maxFiles: number;
  maxCommits: number;
}

export const changesLimits: ChangesLimits = { maxPatchBytes: 384 * 1024, maxFiles: 1000, maxCommits: 50 };

// plumbing only, on the host's own repository: no external diff or text conversion, whatever a config said
const diffOptions = ["-r", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"];

/**
 * A chat's work (docs/repositories.md "A chat's work"): from the commit its working tree started from to its files
 * as they are, uncommitted changes included, compared as trees in the host's repository (`git diff-tree`): the
 * commits on HEAD since then, the files changed with their line counts, and the unified diff when it is small
 * enough (`path`: of that file only).
 */
export async function chatChanges(view: TreeView, options: { path?: string | undefined; limits?: ChangesLimits } = {}): Promise<ChatChanges> {
  const limits = options.limits ?? changesLimits;
  const { state, repository } = view;
  const { local, reader } = repository;
  const base = state.base ?? (await mergeBase(view)) ?? state.head;
  const [baseTree, headTree] = await Promise.all([reader.commitTree(base), reader.commitTree(state.head)]);
  const log = await commitLog(local, { tip: state.head, hidden: [base], limit: limits.maxCommits });
  const pathspec = options.path === undefined ? [] : ["--", options.path];
  const [counts, kinds, uncommitted] = await Promise.all([
    diffTree(view, ["--numstat", "-z", baseTree, state.files, ...pathspec]),
    diffTree(view, ["--raw", "-z", baseTree, state.files, ...pathspec]),
    diffTree(view, ["--name-only", "-z", headTree, state.files, ...pathspec]),
  ]);
  const changed = new Set(nulFields(uncommitted));
  const lines = numstat(counts);
  const files = rawChanges(kinds).map(({ path, change }): ChangedFile => {
    const count = lines.get(path);
    return { path, change, additions: count?.additions ?? 0, deletions: count?.deletions ?? 0, binary: count === undefined, uncommitted: changed.has(path) };
  });
  let patch: string | null = null;
  if (files.length > 0) {
    try {
      patch = (await runGit({ ...local.place, args: ["diff-tree", "-p", ...diffOptions, baseTree, state.files, ...pathspec], maxOutputBytes: limits.maxPatchBytes })).stdout.toString("utf8");
    } catch (error) {
      if (!(error instanceof GitFailed && error.stderr.startsWith("output over"))) throw error;
    }
  } else patch = "";
  return {
    branch: state.branch,
    base,
    head: state.head,
    detached: state.detached,
    clean: state.files === headTree && state.index === headTree,
    commits: log.commits,
    commits_truncated: log.more,
    files: files.slice(0, limits.maxFiles),
    files_truncated: files.length > limits.maxFiles,
    patch,
    patch_truncated: patch === null,
  };
}

/** The files that differ between two files trees of a repository (a working tree before and after a run), by path. */
export async function changedPaths(repository: AttachedRepository, from: string, to: string): Promise<RawChange[]> {
  if (from === to) return [];
  return rawChanges((await runGit({ ...repository.local.place, args: ["diff-tree", ...diffOptions, "--raw", "-z", from, to] })).stdout.toString("utf8"));
}

/** Where a working tree stored before `base` was kept forked from the default branch. */
async function mergeBase(view: TreeView): Promise<string | undefined> {
  const { repository, state } = view;
  const refs = (await repository.bucket.refs(repository.project, repository.record.generation)).value?.refs ?? [];
  const main = refs.find((ref) => ref.name === `refs/heads/${repository.record.default_branch}`);
  if (!main) return undefined;
  const found = await runGit({ ...repository.local.place, args: ["merge-base", state.head, main.id] }).catch(() => undefined);
  return found?.stdout.toString("latin1").trim() || undefined;
}

async function diffTree(view: TreeView, args: readonly string[]): Promise<string> {
  return (await runGit({ ...view.repository.local.place, args: ["diff-tree", ...diffOptions, ...args] })).stdout.toString("utf8");
}

function nulFields(text: string): string[] {
  return text.split("\0").filter((field) => field !== "");
}

/** `--numstat -z`: `added\tdeleted\tpath\0`, `-\t-\t` for a binary file (left out: binary). */
function numstat(text: string): Map<string, { additions: number; deletions: number }> {
  const counts = new Map<string, { additions: number; deletions: number }>();
  for (const field of nulFields(text)) {
    const [added, deleted, ...rest] = field.split("\t");
    if (added === "-" || added === undefined || deleted === undefined) continue;
    counts.set(rest.join("\t"), { additions: Number(added), deletions: Number(deleted) });
  }
  return counts;
}

/** A file two trees hold differently: its path, how it changed, and its object in the second tree (zeros when deleted). */
export interface RawChange {
  path: string;
  change: ChangedFile["change"];
  id: string;
}

/** `--raw -z`: `:<mode> <mode> <id> <id> <status>\0<path>\0` per file. */
function rawChanges(text: string): RawChange[] {
  const fields = nulFields(text);
  const changes: RawChange[] = [];
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const [, , , id = "", status = ""] = (fields[at] ?? "").split(" ");
    const path = fields[at + 1] ?? "";
    changes.push({ path, id, change: status === "A" ? "added" : status === "D" ? "deleted" : status === "T" ? "type_changed" : "modified" });
  }
  return changes;
}
