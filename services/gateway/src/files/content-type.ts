import { extname } from "node:path";
import { getOwn } from "@agent-orchestrator/shared/wire";

const contentTypes: Readonly<Record<string, string>> = {
  ".md": "text/markdown; charset=utf-8",
  ".markdown": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".yaml": "text/yaml; charset=utf-8",
  ".yml": "text/yaml; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
};

/**
 * The content type of a session file by its extension: a small list of types no browser renders as a
 * document; everything else (HTML, XHTML, SVG, XML and anything unknown) is plain text, so a file the
 * model wrote can never run as a page on our origin. (`.xml` as `application/xml` renders as live XHTML.)
 */
export function contentTypeFor(path: string): string {
  const extension = extname(path).toLowerCase();
  return getOwn(contentTypes, extension) ?? "text/plain; charset=utf-8";
}
