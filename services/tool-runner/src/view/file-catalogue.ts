import type { ProjectLayout } from "../sandbox/project-layout.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { InstalledFiles } from "./installed-files.js";
import { PatternWorkers } from "./pattern-workers.js";
import { StoredFiles } from "./stored-files.js";
import { TreeFiles } from "./tree-files.js";

/**
 * What find_files and search_files keep for the life of a tool-runner, beside the sandbox that owns it: the
 * index of the installed BMAD files, the stored files each space's index lets the view list, and the worker
 * threads that run the model's patterns off the event loop.
 */
export class FileCatalogue {
  readonly installed: InstalledFiles;
  /** the projects' and chats' files the view lists, filtered once per revision of their index */
  readonly stored = new StoredFiles();
  /** the files of projects' working trees the view lists, filtered once per files tree */
  readonly trees = new TreeFiles();
  /** worker threads are started on the first pattern, not here */
  readonly workers = new PatternWorkers();

  constructor(layout: () => Promise<ProjectLayout>) {
    this.installed = new InstalledFiles(layout);
  }
}

const catalogues = new WeakMap<Sandbox, FileCatalogue>();

/**
 * The catalogue of `sandbox`, made on its first use and kept while the sandbox lives. Kept here rather than on
 * the sandbox so the sandbox does not depend on the view built above it.
 */
export function catalogueOf(sandbox: Sandbox): FileCatalogue {
  let catalogue = catalogues.get(sandbox);
  if (catalogue === undefined) {
    catalogue = new FileCatalogue(() => sandbox.layout());
    catalogues.set(sandbox, catalogue);
  }
  return catalogue;
}
