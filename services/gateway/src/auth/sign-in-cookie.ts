import type { IncomingMessage } from "node:http";
import type { CookieOptions, Response } from "express";

/**
 * The cookies of a browser sign-in (docs/sign-in.md "Cookies"). Over https they are `Secure` and named
 * `__Host-…` (the browser then refuses them from any other origin or path, and over plain http); over
 * http, which the settings allow only on a loopback host, they cannot be either. HttpOnly: no script reads
 * them. SameSite=Lax: sent on the provider's top-level redirect back to the callback, not on other sites'
 * requests (a form posted from another site carries no sign-in).
 */
export class SignInCookies {
  /** the sign-in's random id */
  readonly session: string;
  /** the state, nonce and PKCE verifier of a sign-in under way, for the callback */
  readonly flow: string;
  private readonly secure: boolean;

  constructor(redirectUrl: URL) {
    this.secure = redirectUrl.protocol === "https:";
    const prefix = this.secure ? "__Host-" : "";
    this.session = `${prefix}ao_session`;
    this.flow = `${prefix}ao_sign_in_flow`;
  }

  set(response: Response, name: string, value: string, maxAgeMs: number): void {
    response.cookie(name, value, { ...this.options(), maxAge: maxAgeMs });
  }

  clear(response: Response, name: string): void {
    response.clearCookie(name, this.options());
  }

  private options(): CookieOptions {
    return { httpOnly: true, sameSite: "lax", secure: this.secure, path: "/" };
  }
}

/** The value of cookie `name` in a request's `Cookie` header (the first, as browsers send the most specific first). */
export function cookieValue(request: IncomingMessage, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0 || part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
