import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileStore } from "@agent-orchestrator/tool-runner";
import type { ProjectDocument } from "./bmad-project-documents.js";

const author = { user: "bench", session_id: "bench-seed", agent_id: "bench-agent" };
// each batch is one move of the project's index: a few large batches, not 10,000 small writes
const batchFiles = 1_000;

/**
 * Puts generated documents in a project of the file store as a script's results land (FileStore.apply: the
 * contents stored, then the index moved once per batch). Returns the bytes stored.
 */
export async function seedProject(files: FileStore, projectId: string, documents: readonly ProjectDocument[]): Promise<number> {
  const encoder = new TextEncoder();
  let bytes = 0;
  for (let start = 0; start < documents.length; start += batchFiles) {
    const batch = documents.slice(start, start + batchFiles).map((document) => ({ path: document.path, content: encoder.encode(document.content) }));
    await files.apply({ kind: "project", id: projectId }, batch, author);
    bytes += batch.reduce((sum, change) => sum + change.content.byteLength, 0);
  }
  return bytes;
}

/** The same documents under `folder` on disk, for the baselines. */
export async function writeTree(folder: string, documents: readonly ProjectDocument[]): Promise<void> {
  for (const document of documents) {
    await mkdir(path.dirname(path.join(folder, document.path)), { recursive: true });
    await writeFile(path.join(folder, document.path), document.content);
  }
}
