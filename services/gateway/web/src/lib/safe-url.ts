/** Schemes a rendered link may use; anything else (javascript:, data:, vbscript:, file:…) is refused. */
const allowedSchemes = new Set(["http", "https"]);

/**
 * The URL when a link to it is safe to render: http(s) or relative. Browsers ignore ASCII whitespace and
 * control characters inside a scheme (`java\tscript:` is `javascript:`), so they are removed before the
 * scheme is read, and the cleaned URL is the one returned.
 */
export function safeUrl(url: string): string | undefined {
  // C0 controls and space, DEL, C1 controls
  const cleaned = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  if (cleaned === "") return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(cleaned)?.[1];
  if (scheme === undefined) return cleaned;
  return allowedSchemes.has(scheme.toLowerCase()) ? cleaned : undefined;
}
