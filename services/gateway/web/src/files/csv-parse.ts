// no dependency: RFC 4180 is a few lines, and the viewer only needs rows of strings to put into text nodes

/** A CSV file's rows, or as many as `maxRows` allows; `cut` says there were more. */
export interface CsvRows {
  rows: string[][];
  cut: boolean;
}

/**
 * Parses CSV as RFC 4180 writes it: fields split by commas, rows by CRLF or LF, a field in double quotes may
 * hold commas, line breaks and doubled quotes. Lenient where files in the wild are not: a quote inside an
 * unquoted field is kept as text, and an unclosed quote runs to the end of the file.
 */
export function parseCsv(text: string, maxRows = 2000): CsvRows {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = (): boolean => {
    row.push(field);
    rows.push(row);
    row = [];
    field = "";
    return rows.length >= maxRows;
  };
  for (; index < text.length; index++) {
    const character = text[index];
    if (quoted) {
      if (character !== '"') field += character;
      else if (text[index + 1] === '"') {
        field += '"';
        index++;
      } else quoted = false;
    } else if (character === '"' && field === "") quoted = true;
    else if (character === ",") {
      row.push(field);
      field = "";
    } else if (character === "\n" || character === "\r") {
      if (character === "\r" && text[index + 1] === "\n") index++;
      if (endRow()) return { rows, cut: index + 1 < text.length };
    } else field += character;
  }
  // the last row, unless the file ended with a line break
  if (field !== "" || row.length > 0 || quoted) endRow();
  return { rows, cut: false };
}
