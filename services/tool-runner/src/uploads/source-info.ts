import type { SourceInfoReply } from "@agent-orchestrator/shared/wire";
import type { FileStore } from "../store/file-store.js";

/** The project's code snapshot summary, or null when it has none. */
export async function sourceInfo(files: FileStore, projectId: string): Promise<SourceInfoReply> {
  return { success: true, source: (await files.sources.current(projectId))?.info ?? null };
}

/** Removes the project's code snapshot (NOT_FOUND when it has none); its files leave the project view at once. */
export async function removeSource(files: FileStore, projectId: string): Promise<SourceInfoReply> {
  await files.sources.remove(projectId);
  return { success: true, source: null };
}
