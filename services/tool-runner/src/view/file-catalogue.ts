import type { ProjectLayout } from "../sandbox/project-layout.js";
import { InstalledFiles } from "./installed-files.js";
import { PatternWorkers } from "./pattern-workers.js";
import { StoredFiles } from "./stored-files.js";

/**
 * What find_files and search_files keep for the life of a tool-runner, beside the sandbox that owns it: the
 * index of the installed BMAD files, the stored files each space's index lets the view list, the read limit
 * (READ_MAX_BYTES: a larger file is never searched, as it could never be read), and the worker threads that
 * run the model's patterns off the event loop.
 */
export class FileCatalogue {
  readonly installed: InstalledFiles;
  /** the projects' and chats' files the view lists, filtered once per revision of their index */
  readonly stored = new StoredFiles();
  /** worker threads are started on the first pattern, not here */
  readonly workers = new PatternWorkers();

  constructor(
    layout: () => Promise<ProjectLayout>,
    readonly readMaxBytes: number,
  ) {
    this.installed = new InstalledFiles(layout);
  }
}
