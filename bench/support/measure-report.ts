/** One line of the results table: a figure for the baseline and the system, what that makes, and the target. */
export interface MeasureRow {
  /** what the line measures, with its unit */
  label: string;
  baseline: string;
  system: string;
  /** the comparison: "+0.31 ms", "1.42×", "57× fewer" */
  result: string;
  /** the target for this line, when it has one */
  target?: string;
  met?: boolean;
}

/** What one measure hands to the run: its table lines, raw figures for latest.json, and how it was done. */
export interface MeasureReport {
  /** the measure's number, as bench/README.md lists them */
  id: number;
  title: string;
  /** how it was measured, in a sentence or two (also printed under the table) */
  method: string;
  rows: MeasureRow[];
  /** summaries and settings, written to latest.json as they are */
  details: Record<string, unknown>;
  /** what a reader must know to trust the figures: caveats, where the time goes */
  notes: string[];
}

/** Milliseconds with a precision that suits their size (microseconds below 0.1 ms). */
export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) < 0.1) return `${(value * 1000).toFixed(1)} µs`;
  if (Math.abs(value) >= 100) return `${value.toFixed(0)} ms`;
  if (Math.abs(value) >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

/** A difference in milliseconds, signed. */
export const formatAddedMs = (value: number): string => (value >= 0 ? "+" : "−") + formatMs(Math.abs(value));

/** A ratio such as 1.42×. */
export const formatRatio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(value >= 10 ? 0 : 2)}×` : "n/a");
