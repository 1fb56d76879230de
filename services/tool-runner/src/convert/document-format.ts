/** The kinds of uploaded document that get a Markdown form beside them. */
export type DocumentFormat = "pdf" | "docx" | "html";

const formatOfExtension: ReadonlyMap<string, DocumentFormat> = new Map([
  ["pdf", "pdf"],
  ["docx", "docx"],
  ["html", "html"],
  ["htm", "html"],
  ["xhtml", "html"],
]);

// Acrobat, and pdf.js after it, accept a header anywhere in the first kilobyte (some files start with junk)
const pdfHeaderWithin = 1024;
const pdfHeader = "%PDF-";
const zipLocalHeader = [0x50, 0x4b, 0x03, 0x04];

/** The format a file's name claims, by its extension alone (case-blind); undefined for any other file. */
export function claimedFormat(name: string): DocumentFormat | undefined {
  const dot = name.lastIndexOf(".");
  if (dot === -1) return undefined;
  return formatOfExtension.get(name.slice(dot + 1).toLowerCase());
}

/**
 * The format of a document we convert: its extension claims it AND its first bytes agree (`%PDF-` within the
 * first kilobyte for a PDF, a zip's local file header for a DOCX; HTML is known by its extension alone, its
 * bytes are text of any encoding). Undefined when either says no. Whether the zip holds `word/document.xml` is
 * proved when it is read (a zip lists its entries at its end); the conversion fails with a reason if not.
 */
export function documentFormat(name: string, head: Uint8Array): DocumentFormat | undefined {
  const claimed = claimedFormat(name);
  if (claimed === undefined) return undefined;
  return headAgrees(claimed, head) ? claimed : undefined;
}

/** Why a file whose name claims `format` is not one, in words for the user. */
export function notThatFormat(format: DocumentFormat): string {
  switch (format) {
    case "pdf":
      return "not a PDF: the file does not start with %PDF-";
    case "docx":
      return "not a Word document: the file is not a zip archive";
    case "html":
      return "not an HTML document";
  }
}

function headAgrees(format: DocumentFormat, head: Uint8Array): boolean {
  switch (format) {
    case "pdf":
      return Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, pdfHeaderWithin + pdfHeader.length)).indexOf(pdfHeader) !== -1;
    case "docx":
      return zipLocalHeader.every((byte, index) => head[index] === byte);
    case "html":
      return true;
  }
}
