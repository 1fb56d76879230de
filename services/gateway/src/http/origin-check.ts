import type { IncomingMessage } from "node:http";

/**
 * Whether a request's `Origin` may use the API: no `Origin` (programs other than browsers send none,
 * browsers always do and cannot forge it), an origin in ALLOWED_ORIGINS, or the gateway's own.
 */
export function originAllowed(request: IncomingMessage, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
