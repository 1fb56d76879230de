/** One regular file of an archive, as it is handed on: its checked path (after any strip) and size in bytes. */
export interface ArchiveFile {
  path: string;
  size: number;
}

/** What one archive held: its regular files, their bytes, and its folder entries. */
export interface ArchiveSummary {
  files: number;
  bytes: number;
  folders: number;
}

/** Takes one file's content; the reader waits for it before reading the next file. */
export type OnArchiveFile = (entry: ArchiveFile, content: Buffer) => Promise<void>;
