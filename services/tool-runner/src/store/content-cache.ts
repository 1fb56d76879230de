/**
 * File contents a tool-runner has read or written lately, by sha256, within a byte budget (FILE_CACHE_MB).
 * Content-addressed, so an entry is never stale: a file's new revision has another sha256. Least recently used
 * entries go first; a content larger than the budget is not kept.
 */
export class ContentCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(sha256: string): Uint8Array | undefined {
    const found = this.entries.get(sha256);
    if (found === undefined) return undefined;
    this.entries.delete(sha256);
    this.entries.set(sha256, found);
    return found;
  }

  has(sha256: string): boolean {
    return this.entries.has(sha256);
  }

  set(sha256: string, content: Uint8Array): void {
    if (content.byteLength > this.maxBytes || this.entries.has(sha256)) return;
    this.entries.set(sha256, content);
    this.bytes += content.byteLength;
    for (const [key, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= value.byteLength;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
