/** The absolute file URLs of the libraries a conversion worker loads. */
export interface LibraryUrls {
  unpdf: string;
  mammoth: string;
  turndown: string;
  gfm: string;
}

let resolved: LibraryUrls | undefined;

/**
 * Resolved here, from this module, because code evaluated in a worker has no module of its own to resolve from:
 * the same from the TypeScript sources and from `dist/`. unpdf's ESM entry is used for its `getResolvedPDFJS`,
 * which installs the globals pdf.js needs before loading its serverless build.
 */
export function libraryUrls(): LibraryUrls {
  resolved ??= {
    unpdf: import.meta.resolve("unpdf"),
    mammoth: import.meta.resolve("mammoth"),
    turndown: import.meta.resolve("turndown"),
    gfm: import.meta.resolve("@joplin/turndown-plugin-gfm"),
  };
  return resolved;
}
