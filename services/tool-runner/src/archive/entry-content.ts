/**
 * One file's bytes gathered as they are read, into a buffer of its declared size (at most maxEntryBytes:
 * the tally checks it before one is made). The reader stops a file that passes its size before `add`.
 */
export class EntryContent {
  private readonly buffer: Buffer;
  private length = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  add(chunk: Buffer): void {
    if (this.length + chunk.length > this.buffer.length) throw new RangeError("more data than the entry declared");
    this.length += chunk.copy(this.buffer, this.length);
  }

  /** The bytes gathered: all of the buffer once the file is read to its end. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}
