import type { FileAuthor } from "@agent-orchestrator/shared/wire";
import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { isProtectedSegment } from "../paths/protected-names.js";
import { accessDenied, sandboxError } from "../paths/sandbox-error.js";
import { isServableName } from "../paths/servable-name.js";
import type { ChatTree, TreeView, WorkingTrees } from "../repository/index.js";
import type { FolderEntry } from "./folder-lister.js";
import { decodeText } from "./text-content.js";

/** A path of a project's working tree, as the sandbox located it (`path`: `/`-separated, "" the root). */
export interface TreeLocation {
  chat: ChatTree;
  view: TreeView;
  path: string;
  virtualPath: string;
  detail: Record<string, unknown>;
}

/** What reading a working tree's file gives the sandbox. */
export interface TreeRead {
  content: string;
  size: number;
  revision: number;
}

/**
 * The file tools on a project's working tree (docs/repositories.md "A tool-runner's cache"): read from the
 * state's trees, written as a new state. A symbolic link or a submodule of the repository is a blob to the
 * tools: never followed, never written through (RELIABILITY case 91).
 */
export async function readTreeFile(located: TreeLocation, maxBytes: number): Promise<TreeRead> {
  const { view, virtualPath, detail } = located;
  const reader = view.repository.reader;
  const found = await reader.lookup(view.state.files, located.path);
  if (found.found === "tree") throw sandboxError("NOT_A_FILE", `Not a file: ${virtualPath} is a folder; use list_files`);
  if (found.found === "link-on-path") throw linkRefused(detail, found.at);
  if (found.found === "none") throw sandboxError("FILE_NOT_FOUND", `File not found: ${virtualPath}`);
  const { entry } = found;
  if (entry.kind === "symlink") throw linkRefused(detail, located.path);
  if (entry.kind === "submodule") throw sandboxError("NOT_A_REGULAR_FILE", `Not a regular file: ${virtualPath} is a submodule`);
  const size = await reader.size(entry.id);
  if (size > maxBytes) throw sandboxError("FILE_TOO_LARGE", `File too large: ${virtualPath} is ${size} bytes; the limit is ${maxBytes}`);
  const content = decodeText(await reader.blob(entry.id));
  if (content === undefined) throw sandboxError("BINARY_FILE", `Binary file: ${virtualPath}; only text files can be read`);
  return { content, size, revision: view.revision };
}

/**
 * The entries of a working tree's folder: folders and files the tools can open, not protected names, and at the
 * root not BMAD's install places (the install's folders are listed there instead, by the caller). Links and
 * submodules are left out, counted in `unservable`.
 */
export async function listTreeFolder(located: TreeLocation): Promise<{ entries: FolderEntry[]; unservable: number } | undefined> {
  const reader = located.view.repository.reader;
  const found = await reader.lookup(located.view.state.files, located.path);
  if (found.found === "entry") throw sandboxError("INVALID_PATH", `Not a folder: ${located.virtualPath}`);
  if (found.found === "link-on-path") throw linkRefused(located.detail, found.at);
  if (found.found === "none") return undefined;
  const entries: FolderEntry[] = [];
  let unservable = 0;
  for (const entry of await reader.entries(found.id)) {
    if (isProtectedSegment(entry.name) || (located.path === "" && isInstallPlace(entry.name))) continue;
    if (!isServableName(entry.name) || entry.kind === "symlink" || entry.kind === "submodule") {
      unservable += 1;
      continue;
    }
    entries.push(entry.kind === "tree" ? { name: entry.name, type: "directory", size: 0 } : { name: entry.name, type: "file", size: await reader.size(entry.id) });
  }
  return { entries, unservable };
}

/** Writes one file of the working tree whole; returns the new revision of the working tree. */
export async function writeTreeFile(trees: WorkingTrees, located: TreeLocation, bytes: Uint8Array, author: FileAuthor): Promise<number> {
  const written = await trees.change(located.chat, async () => [{ path: located.path, content: bytes }], author);
  return written.revision;
}

/**
 * Changes one text file of the working tree from its content now (`change` gets its text, undefined when there
 * is none), made again on the newer content when another writer came first.
 */
export async function modifyTreeFile(
  trees: WorkingTrees,
  located: TreeLocation,
  change: (current: string | undefined) => Uint8Array,
  limits: { readMaxBytes: number },
  author: FileAuthor,
): Promise<{ revision: number; size: number }> {
  let size = 0;
  const written = await trees.change(
    located.chat,
    async (view) => {
      let current: string | undefined;
      const found = await view.repository.reader.lookup(view.state.files, located.path);
      if (found.found === "link-on-path") throw linkRefused(located.detail, found.at);
      if (found.found === "tree") throw sandboxError("NOT_A_FILE", `Not a file: ${located.virtualPath} is a folder`);
      if (found.found === "entry") {
        if (found.entry.kind === "symlink" || found.entry.kind === "submodule") throw linkRefused(located.detail, located.path);
        const read = await readTreeFile({ ...located, view }, limits.readMaxBytes);
        current = read.content;
      }
      const bytes = change(current);
      size = bytes.byteLength;
      return [{ path: located.path, content: bytes }];
    },
    author,
  );
  return { revision: written.revision, size };
}

/** A link of the repository on the way: refused without saying where it points (RELIABILITY case 91). */
function linkRefused(detail: Record<string, unknown>, at: string): Error {
  return accessDenied("SYMLINK_ESCAPE", { ...detail, link: at }, `{project-root}/${at} is a symbolic link or submodule in the repository; the tools never follow one`);
}
