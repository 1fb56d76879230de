/**
 * How the viewer shows a file, by its name: rendered Markdown, pretty JSON, a CSV table, plain text (YAML
 * and anything unknown, which the API refuses with BINARY_FILE when it is not text), a document (PDF,
 * Word: a download and its Markdown form) or another binary file (a download only).
 */
export type FileKind = "markdown" | "json" | "csv" | "yaml" | "text" | "document" | "binary";

const byExtension: Record<string, FileKind> = {
  md: "markdown",
  markdown: "markdown",
  json: "json",
  csv: "csv",
  yaml: "yaml",
  yml: "yaml",
  pdf: "document",
  docx: "document",
  doc: "document",
};

/** Files the API could never show as text: asking would only get BINARY_FILE back. */
const binaryExtensions = new Set(["png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "tif", "tiff", "zip", "gz", "tgz", "tar", "7z", "xlsx", "xls", "pptx", "ppt", "odt", "ods", "mp3", "mp4", "mov", "wav", "woff", "woff2", "ttf", "otf", "exe", "dll", "so", "class", "jar", "wasm"]);

export function fileKind(path: string): FileKind {
  const name = path.split("/").at(-1) ?? "";
  const extension = name.includes(".") ? (name.split(".").at(-1) ?? "").toLowerCase() : "";
  if (Object.hasOwn(byExtension, extension)) return byExtension[extension] as FileKind;
  return binaryExtensions.has(extension) ? "binary" : "text";
}
