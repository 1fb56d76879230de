/**
 * The project view as find_files and search_files see it (docs/file-tools.md "What find_files and search_files see"): its files listed from the store's indexes
 * and an in-memory index of the installed BMAD files, never by walking a disk per call, and the model's
 * patterns run in worker threads. Every base path goes through the sandbox; every content through the
 * store or the sandbox's checked read.
 */
export { FileCatalogue } from "./file-catalogue.js";
export { findViewFiles, type FoundFiles } from "./find-view-files.js";
export { widerGlob } from "./glob-pattern.js";
export { searchLimits, searchViewFiles, type SearchLimits, type SearchOutcome } from "./search-view-files.js";
export { viewFiles, type ViewFile, type ViewListing } from "./view-files.js";
export { BranchFiles } from "./branch-files.js";
export { BranchArchive } from "./branch-archive.js";
export { statChatFiles } from "./chat-files-stat.js";
export { TreeFiles } from "./tree-files.js";
