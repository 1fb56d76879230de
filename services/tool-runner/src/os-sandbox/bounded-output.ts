/**
 * Keeps at most `maxBytes` of a stream: its head and its tail (a traceback is at the end), and counts what is
 * dropped between them, so a script printing 10 MB costs the tool-runner `maxBytes` of memory.
 */
export class BoundedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  /** Takes the next chunk of the stream. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headRoom = Math.ceil(this.maxBytes / 2) - this.headBytes;
    if (headRoom > 0) {
      const part = chunk.subarray(0, headRoom);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    const tailBytes = Math.floor(this.maxBytes / 2);
    this.tail = Buffer.concat([this.tail, chunk]);
    if (this.tail.length > tailBytes) this.tail = this.tail.subarray(this.tail.length - tailBytes);
  }

  /** Bytes the stream carried in all. */
  get totalBytes(): number {
    return this.total;
  }

  /** The text kept: all of it, or head + `[... N bytes omitted ...]` + tail, cut on UTF-8 character boundaries. */
  text(): string {
    const head = Buffer.concat(this.head);
    if (this.total <= this.maxBytes) return Buffer.concat([head, this.tail]).toString("utf8");
    const omitted = this.total - head.length - this.tail.length;
    return `${decodeHead(head)}\n[... ${omitted} bytes omitted ...]\n${decodeTail(this.tail)}`;
  }
}

// A cut may split a multi-byte character: drop its pieces instead of showing replacement characters.
function decodeHead(bytes: Buffer): string {
  let end = bytes.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = bytes[end - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (length > back) end -= back;
    break;
  }
  return bytes.subarray(0, end).toString("utf8");
}

function decodeTail(bytes: Buffer): string {
  let start = 0;
  while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString("utf8");
}
