import type { DocumentFormat } from "./document-format.js";

/** What one conversion may use (the tool-runner's CONVERT_* settings). Sizes are bytes. */
export interface ConversionLimits {
  /** wall time from starting the conversion's worker to its answer */
  timeoutMs: number;
  /** a larger document is not converted (and no worker started) */
  maxInputBytes: number;
  /** a longer Markdown form is cut there, at a character boundary, and ends with a note line saying so */
  maxOutputBytes: number;
  /** the worker's heap (V8 old generation) in MiB; past it the conversion fails */
  heapMb: number;
}

/**
 * What became of an uploaded file: its Markdown form; a document we tried and could not convert, with a
 * reason shown to users (no host path, no stack); or `none`, a file that is not a document we convert (text,
 * images, code, unknown binary).
 */
export type Conversion =
  | { kind: "markdown"; markdown: string; format: DocumentFormat }
  | { kind: "failed"; reason: string; format: DocumentFormat }
  | { kind: "none" };
