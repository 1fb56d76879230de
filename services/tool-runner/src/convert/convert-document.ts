import type { Conversion, ConversionLimits } from "./conversion.js";
import { claimedFormat, documentFormat, notThatFormat, type DocumentFormat } from "./document-format.js";
import { fitMarkdown } from "./fit-markdown.js";
import { runConversionWorker } from "./run-conversion-worker.js";

export type { Conversion, ConversionLimits } from "./conversion.js";
export { documentFormat, type DocumentFormat } from "./document-format.js";

/**
 * The Markdown form of an uploaded PDF, DOCX or HTML file (`brief.pdf` is stored with `brief.pdf.md` beside
 * it), converted in a worker thread of its own within `limits` (run-conversion-worker.ts). What is not a
 * document we convert is `none` at once; a file whose name claims a format its bytes deny (a `.pdf` of plain
 * text), or that is larger than `maxInputBytes`, is `failed` without a worker. Never rejects. Each call starts
 * its worker now: a service converting uploads goes through a `DocumentConverter`, which queues them and stops
 * them with the service.
 */
export async function convertDocument(name: string, content: Uint8Array, limits: ConversionLimits, signal?: AbortSignal): Promise<Conversion> {
  const checked = checkDocument(name, content, limits);
  if (checked.kind !== "convert") return checked;
  const { format } = checked;
  const outcome = await runConversionWorker({ format, content, limits, signal });
  if (!outcome.ok) return { kind: "failed", reason: outcome.reason, format };
  return { kind: "markdown", markdown: fitMarkdown(outcome.markdown, limits.maxOutputBytes, outcome.cut), format };
}

/** What can be told of a file without converting it: `none`, `failed`, or the format to convert it as. */
export type DocumentCheck = Exclude<Conversion, { kind: "markdown" }> | { kind: "convert"; format: DocumentFormat };

export function checkDocument(name: string, content: Uint8Array, limits: ConversionLimits): DocumentCheck {
  const format = claimedFormat(name);
  if (format === undefined) return { kind: "none" };
  if (documentFormat(name, content) === undefined) return { kind: "failed", reason: notThatFormat(format), format };
  if (content.byteLength > limits.maxInputBytes) {
    return { kind: "failed", reason: `too large to convert: ${content.byteLength} bytes; the limit is ${limits.maxInputBytes}`, format };
  }
  return { kind: "convert", format };
}
