// no dependency: pdf-lib is not installed, and a PDF with a text object is a few lines of string building

/** A PDF built by hand for a test: its pages' lines of text, and whatever hostile parts a test adds. */
export interface PdfFixture {
  /** the lines of text of each page, in Helvetica */
  pages: string[][];
  /** entries added to the catalog dictionary, e.g. `/OpenAction 9 0 R` */
  catalog?: string;
  /** entries added to every page dictionary, e.g. `/Annots [10 0 R]` */
  page?: string;
  /** entries added to every page's resource dictionary, e.g. `/XObject << /X1 11 0 R >>` */
  resources?: string;
  /** operators added to every page's content after its text, e.g. `/X1 Do` */
  content?: string;
  /** further objects (their bodies), numbered from `firstExtraObject(pages.length)` on */
  objects?: string[];
}

/** The number of the first of a fixture's further objects. */
export function firstExtraObject(pageCount: number): number {
  return 4 + 2 * pageCount;
}

/** A stream object's body: its dictionary entries and data (Latin-1). */
export function pdfStream(dictionary: string, data: string): string {
  return `<< ${dictionary} /Length ${Buffer.byteLength(data, "latin1")} >>\nstream\n${data}\nendstream`;
}

/** A PDF string literal. */
export function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (character) => `\\${character}`)})`;
}

/** The PDF's bytes, with a correct cross-reference table: object 1 the catalog, 2 the page tree, 3 the font. */
export function buildPdf(fixture: PdfFixture): Uint8Array {
  const pageCount = fixture.pages.length;
  const pageNumbers = fixture.pages.map((_, index) => 4 + 2 * index);
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R ${fixture.catalog ?? ""} >>`,
    `<< /Type /Pages /Kids [${pageNumbers.map((number) => `${number} 0 R`).join(" ")}] /Count ${pageCount} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  ];
  fixture.pages.forEach((lines, index) => {
    const text = lines.map((line, lineIndex) => `${lineIndex === 0 ? "" : "T* "}${pdfString(line)} Tj`).join("\n");
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> ${fixture.resources ?? ""} >> /Contents ${5 + 2 * index} 0 R ${fixture.page ?? ""} >>`,
      pdfStream("", `BT /F1 12 Tf 16 TL 72 720 Td\n${text}\nET\n${fixture.content ?? ""}`),
    );
  });
  objects.push(...(fixture.objects ?? []));

  let body = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n";
  const offsets = objects.map((object, index) => {
    const offset = Buffer.byteLength(body, "latin1");
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xrefOffset = Buffer.byteLength(body, "latin1");
  const entries = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(body, "latin1"));
}
