import type { FileRevision } from "@agent-orchestrator/shared/wire";

/** Content already in the contents store (an upload stored by `storeFile`), named by its sha256. */
export interface StoredContent {
  sha256: string;
  size: number;
}

/** One change of a batch: new content for a path, or `null` to delete it. */
export interface FileChange {
  path: string;
  content: Uint8Array | StoredContent | null;
  /** what the revision records about an upload's conversion to Markdown */
  notes?: Pick<FileRevision, "conversion" | "converted_from">;
}
