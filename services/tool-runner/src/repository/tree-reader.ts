import { AppError } from "@agent-orchestrator/shared/runtime";
import { LRUCache } from "lru-cache";
import { parseTree, type EntryKind, type TreeEntry } from "../git/tree-object.js";
import type { LocalRepository } from "./local-repository.js";

/** A file of a tree, at any depth. */
export interface TreeFile {
  /** `/`-separated, from the root tree */
  path: string;
  id: string;
  kind: Exclude<EntryKind, "tree">;
  /** the blob's size (0 for a submodule) */
  size: number;
}

/** What a path names in a tree. */
export type TreeLookup =
  | { found: "entry"; entry: TreeEntry }
  /** the root itself, or a folder */
  | { found: "tree"; id: string }
  /** a component on the way is a symbolic link or a submodule: nothing under it is in the tree (RELIABILITY case 91) */
  | { found: "link-on-path"; at: string }
  | { found: "none" };

/** Files and bytes of a tree, at any depth. */
export interface TreeSummary {
  files: number;
  bytes: number;
}

// tree entries, and blob sizes, kept per repository: a 50,000-file repository's trees and files several times
// over, not every one ever read (a process keeps up to 64 repositories' readers)
const maxKeptEntries = 250_000;

/**
 * A repository's trees read for the tools (docs/repositories.md "A tool-runner's cache"). Trees and sizes are
 * kept by object id, which names one content for good: after a change, only the trees on its path are read again.
 */
export class TreeReader {
  private readonly trees = new LRUCache<string, TreeEntry[]>({ maxSize: maxKeptEntries, sizeCalculation: (entries) => entries.length + 1 });
  private readonly sizes = new LRUCache<string, number>({ max: maxKeptEntries });
  private readonly commitTrees = new LRUCache<string, string>({ max: 10_000 });
  private readonly summaries = new LRUCache<string, TreeSummary>({ max: 100_000 });
  private readonly listings = new LRUCache<string, TreeFile[]>({ maxSize: maxKeptEntries, sizeCalculation: (files) => files.length + 1 });

  constructor(private readonly local: Pick<LocalRepository, "read" | "size">) {}

  /** The entries of tree `id`. */
  async entries(id: string): Promise<TreeEntry[]> {
    const known = this.trees.get(id);
    if (known) return known;
    const object = await this.local.read(id);
    if (object.type !== "tree") throw new AppError("INTERNAL", `Not a tree: ${id}`);
    const entries = parseTree(object.content);
    this.trees.set(id, entries);
    return entries;
  }

  /** What `path` (`src/app.ts`; "" the root) names in the tree `root`. */
  async lookup(root: string, path: string): Promise<TreeLookup> {
    if (path === "") return { found: "tree", id: root };
    const names = path.split("/");
    let tree = root;
    for (const [position, name] of names.entries()) {
      const entry = (await this.entries(tree)).find((one) => one.name === name);
      if (!entry) return { found: "none" };
      if (position === names.length - 1) return entry.kind === "tree" ? { found: "tree", id: entry.id } : { found: "entry", entry };
      if (entry.kind === "symlink" || entry.kind === "submodule") return { found: "link-on-path", at: names.slice(0, position + 1).join("/") };
      if (entry.kind !== "tree") return { found: "none" };
      tree = entry.id;
    }
    return { found: "none" };
  }

  /** The root tree of commit `id`. */
  async commitTree(id: string): Promise<string> {
    const known = this.commitTrees.get(id);
    if (known) return known;
    const object = await this.local.read(id);
    const tree = object.type === "commit" ? /^tree ([0-9a-f]{40})\n/.exec(object.content.toString("latin1"))?.[1] : undefined;
    if (tree === undefined) throw new AppError("INTERNAL", `Not a commit: ${id}`);
    this.commitTrees.set(id, tree);
    return tree;
  }

  /** The content of blob `id`. */
  async blob(id: string): Promise<Buffer> {
    const object = await this.local.read(id);
    if (object.type !== "blob") throw new AppError("INTERNAL", `Not a blob: ${id}`);
    return object.content;
  }

  /** The size of blob `id`, without reading it. */
  async size(id: string): Promise<number> {
    const known = this.sizes.get(id);
    if (known !== undefined) return known;
    const size = await this.local.size(id);
    this.sizes.set(id, size);
    return size;
  }

  /** Every file of tree `root`, at any depth, with its size; kept per root. */
  async files(root: string): Promise<readonly TreeFile[]> {
    const known = this.listings.get(root);
    if (known) return known;
    const files: TreeFile[] = [];
    await this.collect(root, "", files);
    this.listings.set(root, files);
    return files;
  }

  /** Files and bytes of tree `id`, at any depth; kept per tree, so a new root costs only its new subtrees. */
  async summary(id: string): Promise<TreeSummary> {
    const known = this.summaries.get(id);
    if (known) return known;
    let files = 0;
    let bytes = 0;
    const entries = await this.entries(id);
    const parts = await Promise.all(
      entries.map(async (entry): Promise<TreeSummary> => {
        if (entry.kind === "tree") return this.summary(entry.id);
        if (entry.kind === "submodule") return { files: 0, bytes: 0 };
        return { files: 1, bytes: await this.size(entry.id) };
      }),
    );
    for (const part of parts) {
      files += part.files;
      bytes += part.bytes;
    }
    const summary = { files, bytes };
    this.summaries.set(id, summary);
    return summary;
  }

  private async collect(tree: string, prefix: string, into: TreeFile[]): Promise<void> {
    const entries = await this.entries(tree);
    const sizes = await Promise.all(entries.map((entry) => (entry.kind === "tree" || entry.kind === "submodule" ? Promise.resolve(0) : this.size(entry.id))));
    for (const [position, entry] of entries.entries()) {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.kind === "tree") await this.collect(entry.id, path, into);
      else into.push({ path, id: entry.id, kind: entry.kind, size: sizes[position] ?? 0 });
    }
  }
}
