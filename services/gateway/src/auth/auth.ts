import type { IncomingMessage } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type SignInSession, type SignInVia } from "@agent-orchestrator/shared/wire";
import { authenticationRequired } from "../config.js";
import type { GatewayContext } from "../gateway-context.js";
import { isAllowedOrigin } from "../http/origin-check.js";
import { sessionAdmitted } from "./admission.js";
import type { SignIn } from "./auth-throttle.js";
import { bearerSignIn } from "./bearer-sign-in.js";
import { cookieValue } from "./sign-in-cookie.js";
import { csrfTokenMatches } from "./sign-in-sessions.js";
import type { SignInServices } from "./sign-in-services.js";

/** The owner of everything a request does when no tokens are configured (a single-user local gateway). */
export const localUser = "local";

/** Methods that change nothing: a request signed in by the cookie needs no CSRF proof for them. */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

export interface AuthenticateOptions {
  /**
   * whether the browser sign-in's cookie signs a request in (only /api and /ws, which the web page uses;
   * /v1 and /mcp take bearer tokens only, so no other site's page can drive them with a visitor's cookie)
   */
  cookie: boolean;
}

type AuthContext = Pick<GatewayContext, "config" | "clientAddress">;

/**
 * Records the caller's user name for the routes. With neither AUTH_TOKENS nor OIDC_ISSUER every caller
 * is the local user. Otherwise a request brings `Authorization: Bearer <token>` (a provider's JWT, a
 * personal token or an AUTH_TOKENS token: auth/bearer-sign-in.ts), or, where `cookie` allows, the browser
 * sign-in's cookie, whose state-changing requests must prove they come from the page (`x-csrf-token` and
 * the origin: docs/sign-in.md "CSRF"). A refusal goes to the router's error handler, which answers it in
 * that API's error shape. Wrong tokens are counted per client address, and an address that sent too many
 * is refused (RATE_LIMITED with retry-after), except for a token that has signed in from there before
 * (auth/auth-throttle.ts).
 */
export function authenticate(context: AuthContext, auth: SignInServices, options: AuthenticateOptions = { cookie: false }) {
  const required = authenticationRequired(context.config);
  const signInBearer = bearerSignIn(context, auth);
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!required) {
      response.locals["user"] = localUser;
      return next();
    }
    void identify(context, auth, request, options, signInBearer).then((signedIn) => {
      if (signedIn === undefined) {
        // a client that has not signed in yet; only a token that was given and is wrong is a guess
        response.set("www-authenticate", 'Bearer realm="agent-orchestrator"');
        return next(new AppError("UNAUTHORIZED", auth.oidc ? "Sign in (GET /auth/login) or send a valid bearer token" : "A valid bearer token is required"));
      }
      if (!signedIn.ok) {
        if (signedIn.retryAfterSeconds !== undefined) response.set("retry-after", String(signedIn.retryAfterSeconds));
        else if (signedIn.error.code === "UNAUTHORIZED") response.set("www-authenticate", 'Bearer realm="agent-orchestrator"');
        return next(signedIn.error);
      }
      response.locals["user"] = signedIn.user;
      response.locals["signedInVia"] = signedIn.via;
      next();
    }, next);
  };
}

/**
 * Who a request is: its bearer token's user, else (where allowed) its sign-in cookie's, checked for CSRF
 * on a state-changing request; undefined when it brings neither.
 */
async function identify(
  context: AuthContext,
  auth: SignInServices,
  request: Request,
  options: AuthenticateOptions,
  signInBearer: ReturnType<typeof bearerSignIn>,
): Promise<SignIn | undefined> {
  const header = request.headers.authorization;
  if (header !== undefined) return signInBearer(context.clientAddress(request), bearerToken(header));
  if (!options.cookie) return undefined;
  const session = await cookieSession(context, auth, request);
  if (!session) return undefined;
  if (!safeMethods.has(request.method) && !fromThePage(context, auth, request, session)) {
    return { ok: false, error: new AppError("CSRF_REFUSED", "A request signed in by the sign-in cookie must carry the page's x-csrf-token and come from its origin") };
  }
  return { ok: true, user: session.user, via: session.sign_in };
}

/**
 * The sign-in a request's cookie names, while it lasts (read from KV on every request) and while the rules in
 * force still let its user in (auth/admission.ts: groups and domains narrowed since, OpenID Connect turned off).
 */
export async function cookieSession(
  context: Pick<GatewayContext, "config">,
  auth: Pick<SignInServices, "oidc">,
  request: IncomingMessage,
): Promise<(SignInSession & { sign_in: SignInVia }) | undefined> {
  const { oidc } = auth;
  const cookieId = oidc && cookieValue(request, oidc.cookies.session);
  const session = cookieId ? await oidc.sessions.find(cookieId) : undefined;
  if (!session?.sign_in || !sessionAdmitted(session, context.config)) return undefined;
  return { ...session, sign_in: session.sign_in };
}

/**
 * Whether a state-changing request signed in by the cookie proves it comes from the page (docs/sign-in.md
 * "CSRF"): the sign-in's `x-csrf-token`, and the page's own origin (or ALLOWED_ORIGINS) in its `Origin`, else its
 * `Referer`; a request with neither (no browser sends a state-changing fetch so) is refused.
 */
export function fromThePage(context: Pick<GatewayContext, "config">, auth: Pick<SignInServices, "oidc">, request: Request, session: SignInSession): boolean {
  if (!csrfTokenMatches(session, request.get("x-csrf-token"))) return false;
  const origin = request.headers.origin ?? refererOrigin(request.headers.referer);
  return origin !== undefined && isAllowedOrigin(origin, request.headers.host, allowedOrigins(context, auth));
}

function refererOrigin(referer: string | undefined): string | undefined {
  if (referer === undefined) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/** ALLOWED_ORIGINS and the origin of OIDC_REDIRECT_URL (the gateway's public origin behind a proxy). */
export const allowedOrigins = (context: Pick<GatewayContext, "config">, auth: Pick<SignInServices, "oidc">): string[] =>
  auth.oidc ? [...context.config.ALLOWED_ORIGINS, auth.oidc.redirectUrl.origin] : context.config.ALLOWED_ORIGINS;

/** The token of an `Authorization: Bearer <token>` header; any other header as it is (a wrong credential all the same). */
export function bearerToken(header: string): string {
  return /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? header;
}

export const currentUser = (response: Response): string => String(response.locals["user"] ?? localUser);

/** How the request's user signed in (authenticate set it); undefined in the local single-user mode. */
export const currentSignIn = (response: Response): SignInVia | undefined => response.locals["signedInVia"] as SignInVia | undefined;
