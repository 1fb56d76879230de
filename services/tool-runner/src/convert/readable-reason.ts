import type { DocumentFormat } from "./document-format.js";

/** What a library threw in the conversion worker, as it crossed to the main thread. */
export interface LibraryError {
  name: string;
  message: string;
}

const label: Record<DocumentFormat, string> = { pdf: "PDF", docx: "Word document", html: "HTML document" };
const maxDetailChars = 200;

/**
 * Why a document could not be converted, in words shown to the user: a library's message of a known kind
 * becomes a sentence; any other keeps its first line, cut short, with anything that looks like a file path or
 * file URL replaced, so no host path reaches a user (and never a stack, which is not sent).
 */
export function readableReason(format: DocumentFormat, error: LibraryError): string {
  if (error.name === "PasswordException") return "the PDF is protected by a password";
  if (/Maximum call stack size exceeded/.test(error.message)) return `the ${label[format]} is nested too deeply to convert`;
  if (/Could not find main document part/.test(error.message)) return "not a Word document: the archive has no word/document.xml";
  const detail = clean(error.message);
  if (error.name === "InvalidPDFException") return `the PDF is damaged: ${detail}`;
  if (format === "docx" && /zip|central directory|end of data/i.test(error.message)) return `the Word document is damaged: ${detail}`;
  return `could not read the ${label[format]}: ${detail}`;
}

function clean(message: string): string {
  const firstLine = message.split("\n", 1)[0]?.trim() ?? "";
  const withoutPaths = firstLine.replace(/(?:file:\/\/)?(?:\/[^\s/'"()<>]+){2,}\/?/g, "<path>");
  const detail = withoutPaths.length > maxDetailChars ? `${withoutPaths.slice(0, maxDetailChars)}…` : withoutPaths;
  return detail === "" ? "unknown error" : detail;
}
