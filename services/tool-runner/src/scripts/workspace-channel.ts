import { once } from "node:events";
import { open } from "node:fs/promises";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { parseJson } from "@agent-orchestrator/shared/runtime";
import { z } from "zod";

/** A file handed to the sandbox: its channel path (`project/…`, `session/…`), its size, and where its bytes come from. */
export interface WorkspaceInput {
  relative: string;
  size: number;
  /** the content, fetched when it is sent, so a run holds one file's bytes at a time (the store caches them) */
  content: () => Promise<Uint8Array>;
}

const ReportFrame = z.union([
  z.strictObject({ file: z.string().min(1).max(4096), size: z.number().int().nonnegative() }),
  z.strictObject({ delete: z.string().min(1).max(4096) }),
  z.strictObject({ skipped: z.string().max(4096), reason: z.string().max(200) }),
  z.strictObject({
    end: z.literal(true),
    exit: z.number().int().nullable().optional(),
    signal: z.number().int().nullable().optional(),
    disk_full: z.boolean().optional(),
    too_many: z.boolean().optional(),
    start_error: z.string().max(1000).optional(),
  }),
]);

/** How the launcher says the run ended. */
export interface ReportEnd {
  exit: number | null;
  signal: number | null;
  diskFull: boolean;
  tooMany: boolean;
  startError?: string;
}

/** What the sandbox reported, its files staged on the host (each under a numbered name, never its own). */
export interface WorkspaceReport {
  files: Array<{ relative: string; size: number; staged: string }>;
  deleted: string[];
  skipped: Array<{ relative: string; reason: string }>;
  /** undefined when the channel closed before the end frame: the launcher was killed or the sandbox died */
  end?: ReportEnd;
  /** the report broke a bound or the protocol; nothing of it may be kept */
  violation?: string;
}

/**
 * Sends the run's files, then the end frame. The sandbox reads them all before the script starts; if it
 * goes away meanwhile, sending stops (its report then has no end, and the run keeps nothing).
 */
export async function writeWorkspaceInput(channel: Writable, inputs: readonly WorkspaceInput[]): Promise<void> {
  for (const input of inputs) {
    if (channel.destroyed) return;
    const content = await input.content();
    await write(channel, `${JSON.stringify({ path: input.relative, size: input.size })}\n`);
    // a content of another length than announced is cut or padded, so the frame keeps the size it announced
    const body = content.byteLength === input.size ? Buffer.from(content.buffer, content.byteOffset, content.byteLength) : fitted(content, input.size);
    for (let offset = 0; offset < body.length; offset += 64 * 1024) await write(channel, body.subarray(offset, offset + 64 * 1024));
  }
  await write(channel, `${JSON.stringify({ end: true })}\n`);
}

function fitted(content: Uint8Array, size: number): Buffer {
  const body = Buffer.alloc(size);
  body.set(content.subarray(0, size));
  return body;
}

async function write(channel: Writable, data: string | Buffer): Promise<void> {
  if (channel.destroyed || channel.write(data)) return;
  // the listener of the event that did not come is removed, so a long input does not pile them up
  const settled = new AbortController();
  try {
    await Promise.race([once(channel, "drain", { signal: settled.signal }), once(channel, "close", { signal: settled.signal })]);
  } finally {
    settled.abort();
  }
}

/**
 * Reads the launcher's report into `staging` within the bounds: `maxBytes` of file content in all,
 * `maxFrames` frames, 16 KiB per header line. Past a bound, or on a frame that breaks the protocol, it stops
 * reading and sets `violation`; the caller then keeps nothing.
 */
export async function readWorkspaceReport(channel: Readable, options: { staging: string; maxBytes: number; maxFrames: number }): Promise<WorkspaceReport> {
  const report: WorkspaceReport = { files: [], deleted: [], skipped: [] };
  let pending: Buffer = Buffer.alloc(0);
  let body: { remaining: number; handle: Awaited<ReturnType<typeof open>> } | undefined;
  let frames = 0;
  let bytes = 0;
  const fail = (why: string) => {
    report.violation = why;
  };
  try {
    for await (const chunk of channel as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length > 0 && report.violation === undefined && report.end === undefined) {
        if (body) {
          const part = pending.subarray(0, body.remaining);
          await body.handle.write(part);
          body.remaining -= part.length;
          pending = pending.subarray(part.length);
          if (body.remaining === 0) {
            await body.handle.close();
            body = undefined;
          }
          continue;
        }
        const newline = pending.indexOf(0x0a);
        if (newline < 0) {
          if (pending.length > 16 * 1024) fail("a report header is too long");
          break;
        }
        const line = pending.subarray(0, newline).toString("utf8");
        pending = pending.subarray(newline + 1);
        if (++frames > options.maxFrames) {
          fail("the report has too many entries");
          break;
        }
        const parsed = parseJson(line);
        const frame = parsed.ok ? ReportFrame.safeParse(parsed.value) : undefined;
        if (!frame?.success) {
          fail("a report frame is malformed");
          break;
        }
        const value = frame.data;
        if ("file" in value) {
          bytes += value.size;
          if (bytes > options.maxBytes) {
            fail("the files written are larger than the disk limit");
            break;
          }
          const staged = path.join(options.staging, String(report.files.length));
          report.files.push({ relative: value.file, size: value.size, staged });
          const handle = await open(staged, "wx", 0o600);
          if (value.size === 0) await handle.close();
          else body = { remaining: value.size, handle };
        } else if ("delete" in value) report.deleted.push(value.delete);
        else if ("skipped" in value) report.skipped.push({ relative: value.skipped, reason: value.reason });
        else {
          report.end = {
            exit: value.exit ?? null,
            signal: value.signal ?? null,
            diskFull: value.disk_full ?? false,
            tooMany: value.too_many ?? false,
            ...(value.start_error === undefined ? {} : { startError: value.start_error }),
          };
        }
      }
      if (report.violation !== undefined || report.end !== undefined) break;
    }
  } catch (error) {
    // the sandbox went away mid-report (a reset socket): the report simply has no end
    if (!["ECONNRESET", "EPIPE"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
  } finally {
    await body?.handle.close();
  }
  if (report.end && (body || pending.length > 0)) fail("the report goes on after its end");
  return report;
}
