import { isForbiddenKey } from "../wire/forbidden-keys.js";
import { getOwn } from "../wire/get-own.js";
import { parse } from "csv-parse/sync";
import type { ParseOutcome } from "./parse-outcome.js";

/** One CSV row by column name; only own keys, never `__proto__` and friends. */
export type CsvRow = Readonly<Record<string, string>>;

/**
 * Reads a CSV file with a header row (the `_bmad/_config/*-manifest.csv` of 6.0.x onwards) into rows keyed by column name.
 * Quoted fields may hold commas and line breaks; rows shorter or longer than the header are read as far
 * as they go. A header that repeats a column keeps the first one.
 */
export function parseCsvTable(text: string): ParseOutcome<CsvRow[]> {
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: false }) as string[][];
  } catch (error) {
    return { ok: false, reason: `not valid CSV: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}` };
  }
  const [header, ...rows] = records;
  if (!header) return { ok: true, value: [] };
  const columns = header.map((name) => name.trim());
  return {
    ok: true,
    value: rows.map((cells) => {
      const row: Record<string, string> = {};
      columns.forEach((name, index) => {
        if (name === "" || isForbiddenKey(name) || getOwn(row, name) !== undefined) return;
        row[name] = (cells[index] ?? "").trim();
      });
      return row;
    }),
  };
}

/** A column of a row, or "" when the row lacks it. */
export function cell(row: CsvRow, column: string): string {
  return getOwn(row, column) ?? "";
}
