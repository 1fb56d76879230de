import type { IncomingMessage } from "node:http";

/**
 * Whether a request's `Origin` may use the API: no `Origin` (programs other than browsers send none,
 * browsers always do and cannot forge it), an origin in ALLOWED_ORIGINS, or the gateway's own.
 */
export function originAllowed(request: IncomingMessage, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  return origin === undefined || isAllowedOrigin(origin, request.headers.host, allowed);
}

/** Whether `origin` is in ALLOWED_ORIGINS (`allowed`) or is the gateway's own (its host is the request's `Host`). */
export function isAllowedOrigin(origin: string, host: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
