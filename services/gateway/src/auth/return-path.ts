/**
 * A path of this gateway to go back to after the sign-in: only a local path (`/…`, not `//host` nor
 * `/\host`, which browsers read as another host), so the sign-in cannot be made to send anyone elsewhere.
 */
export function localReturnPath(value: unknown): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  const url = new URL(value, "http://gateway.invalid");
  return url.origin === "http://gateway.invalid" ? `${url.pathname}${url.search}${url.hash}` : "/";
}
