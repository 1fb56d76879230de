import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** A download read at a capped rate: its size, time, and the zip's own count of entries when it is a zip. */
export interface SlowDownload {
  status: number;
  contentType: string;
  bytes: number;
  wallMs: number;
  /** entries the zip's end-of-central-directory record counts, or undefined when the body does not end like a zip */
  zipEntries: number | undefined;
}

// the end-of-central-directory record: 22 bytes, plus a comment of up to 64 KiB
const tailBytes = 22 + 0xffff;

/** How slowly to read: a rate never passed, and a stall of `stallMs` after every `stallEveryBytes`. */
export interface ReadPace {
  bytesPerSecond: number;
  stallMs: number;
  stallEveryBytes: number;
}

/**
 * `GET url`, read no faster than `pace.bytesPerSecond` and not at all for `pace.stallMs` after every
 * `pace.stallEveryBytes` (what a slow or stalled client does to a download): the reader pauses, the socket
 * fills, and the server must hold back whatever its own pace. Only the last 64 KiB are kept, to read the zip's
 * entry count.
 */
export async function downloadSlowly(url: string, pace: ReadPace): Promise<SlowDownload> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(url, resolve).on("error", reject));
  const started = performance.now();
  let bytes = 0;
  let stalledMs = 0;
  let nextStall = pace.stallEveryBytes;
  let tail = Buffer.alloc(0);
  for await (const part of response) {
    const chunk = part as Buffer;
    bytes += chunk.byteLength;
    tail = Buffer.concat([tail, chunk]);
    if (tail.byteLength > tailBytes) tail = Buffer.from(tail.subarray(tail.byteLength - tailBytes));
    if (bytes >= nextStall) {
      nextStall += pace.stallEveryBytes;
      await sleep(pace.stallMs);
      stalledMs += pace.stallMs;
    }
    // the stalls are not part of the rate: after one the reader does not catch up faster
    const aheadMs = (bytes / pace.bytesPerSecond) * 1000 - (performance.now() - started - stalledMs);
    if (aheadMs > 1) await sleep(aheadMs);
  }
  return { status: response.statusCode ?? 0, contentType: String(response.headers["content-type"] ?? ""), bytes, wallMs: performance.now() - started, zipEntries: zipEntryCount(tail) };
}

/** The total entry count of the end-of-central-directory record found last in `tail` (zip64 records say 0xffff here). */
function zipEntryCount(tail: Buffer): number | undefined {
  for (let at = tail.byteLength - 22; at >= 0; at -= 1) {
    if (tail.readUInt32LE(at) === 0x06054b50 && at + 22 + tail.readUInt16LE(at + 20) === tail.byteLength) return tail.readUInt16LE(at + 10);
  }
  return undefined;
}
