/**
 * A path of this gateway to go back to after the sign-in: only a local path, so the sign-in cannot be made to
 * send anyone elsewhere. What is returned is checked, not only what was given: the URL parser turns
 * `/.//evil.example`, `/%2e%2e//evil.example` and `/a/..//evil.example` into `//evil.example`, which a
 * browser reads as another host, as it does `/\evil.example`.
 */
export function localReturnPath(value: unknown): string {
  if (typeof value !== "string" || !value.startsWith("/")) return "/";
  const url = new URL(value, "http://gateway.invalid");
  const path = `${url.pathname}${url.search}${url.hash}`;
  return url.origin === "http://gateway.invalid" && isLocalPath(path) ? path : "/";
}

/** `/` and a path under it: never `//host` or `/\host`, and no control character a browser would drop. */
const isLocalPath = (path: string): boolean => path.startsWith("/") && path[1] !== "/" && path[1] !== "\\" && !/[\u0000-\u001f\u007f]/.test(path);
