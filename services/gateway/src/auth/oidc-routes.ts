import { Router, type Request, type Response } from "express";
import * as client from "openid-client";
import { z } from "zod";
import { AppError, parseJson, type AuditPublisher, type Logger } from "@agent-orchestrator/shared/runtime";
import { SignInStatus } from "@agent-orchestrator/shared/wire";
import { authenticationRequired } from "../config.js";
import type { GatewayContext } from "../gateway-context.js";
import { sendError } from "../http/send-error.js";
import { bearerToken, cookieSession, fromThePage, localUser } from "./auth.js";
import { AuthThrottle } from "./auth-throttle.js";
import { bearerSignIn } from "./bearer-sign-in.js";
import { cookieValue } from "./sign-in-cookie.js";
import { localReturnPath } from "./return-path.js";
import type { SignInServices } from "./sign-in-services.js";
import { userOfClaims } from "./user-claims.js";

/** How long a browser may take at the provider between `/auth/login` and the callback. */
const flowLifetimeMs = 10 * 60_000;

/** A sign-in under way, kept in its own HttpOnly cookie until the callback (any replica may answer it). */
const SignInFlow = z.object({ state: z.string(), nonce: z.string(), verifier: z.string(), return_to: z.string() });
type SignInFlow = z.infer<typeof SignInFlow>;

/**
 * `/auth/*` (docs/sign-in.md): `GET /auth/me` always (who the caller is, and how this gateway signs in);
 * with OIDC_ISSUER also `GET /auth/login` (to the provider, with PKCE, state and nonce), the callback at
 * OIDC_REDIRECT_URL's path (the code exchanged, the user checked, a sign-in stored in KV and its cookie
 * set) and `POST /auth/logout` (the sign-in deleted from KV, so every replica refuses it at once).
 *
 * Refused callbacks are counted per client address under AUTH_FAILURES_PER_MINUTE, as wrong bearer tokens
 * are (on a count of their own, so a guesser of tokens does not also hold up a neighbour's sign-in): past it
 * a callback gets 429 and leaves no audit record, so nobody can flood the audit log, whose oldest records
 * its size limit drops, without signing in (docs/sign-in.md "Audit").
 */
export function oidcRoutes(context: GatewayContext, services: { auth: SignInServices; audit: AuditPublisher }): Router {
  const router = Router();
  const { auth, audit } = services;
  const signInBearer = bearerSignIn(context, auth);

  router.get("/auth/me", (request, response, next) => {
    response.set("cache-control", "no-store");
    const status = (user: string | null, via: SignInStatus["via"], csrfToken?: string): void => {
      const body: SignInStatus = { success: true, oidc: auth.oidc !== undefined, tokens: context.config.AUTH_TOKENS !== undefined, user, via, ...(csrfToken ? { csrf_token: csrfToken } : {}) };
      response.json(body);
    };
    if (!authenticationRequired(context.config)) return status(localUser, "local");
    const header = request.headers.authorization;
    if (header !== undefined) {
      signInBearer(context.clientAddress(request), bearerToken(header)).then((signedIn) => {
        if (!signedIn.ok) {
          if (signedIn.retryAfterSeconds !== undefined) response.set("retry-after", String(signedIn.retryAfterSeconds));
          return sendError(response, signedIn.error);
        }
        status(signedIn.user, "bearer");
      }, next);
      return;
    }
    cookieSession(context, auth, request).then((session) => (session ? status(session.user, "cookie", session.csrf_token) : status(null, null)), next);
  });

  const { oidc } = auth;
  if (!oidc) return router;
  const scope = context.config.OIDC_SCOPES;

  router.get("/auth/login", (request, response, next) => {
    const verifier = client.randomPKCECodeVerifier();
    client.calculatePKCECodeChallenge(verifier).then((challenge) => {
      const flow: SignInFlow = { state: client.randomState(), nonce: client.randomNonce(), verifier, return_to: localReturnPath(request.query["return_to"]) };
      const url = client.buildAuthorizationUrl(oidc.provider, {
        redirect_uri: oidc.redirectUrl.href,
        scope,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: flow.state,
        nonce: flow.nonce,
      });
      oidc.cookies.set(response, oidc.cookies.flow, Buffer.from(JSON.stringify(flow)).toString("base64url"), flowLifetimeMs);
      response.set("cache-control", "no-store");
      response.redirect(303, url.href);
    }, next);
  });

  const readFlow = (request: Request): SignInFlow | undefined => {
    const value = cookieValue(request, oidc.cookies.flow);
    if (value === undefined) return undefined;
    const parsed = parseJson(Buffer.from(value, "base64url").toString("utf8"));
    const flow = parsed.ok ? SignInFlow.safeParse(parsed.value) : undefined;
    return flow?.success ? flow.data : undefined;
  };

  const refusedCallbacks = new AuthThrottle(context.config.AUTH_FAILURES_PER_MINUTE);

  const callback = async (request: Request, response: Response): Promise<void> => {
    const address = context.clientAddress(request);
    oidc.cookies.clear(response, oidc.cookies.flow);
    response.set("cache-control", "no-store");
    const wait = refusedCallbacks.retryAfterSeconds(address);
    if (wait > 0) {
      context.metrics.refusals.inc({ limit: "sign_in" });
      response.set("retry-after", String(wait));
      return sendError(response, new AppError("RATE_LIMITED", "Too many refused sign-ins from this address; try again later"));
    }
    const flow = readFlow(request);
    const refuse = (error: AppError): void => {
      // a repeat of the same callback (a reload) counts once
      refusedCallbacks.refused(address, request.originalUrl);
      (response.locals["logger"] as Logger).warn({ code: error.code }, `sign-in refused: ${error.message}`);
      void audit.record({ actor: "_", action: "sign_in_failed", client_address: address, outcome: "refused", detail: `${error.code}: ${error.message}` });
      sendError(response, error);
    };
    if (!flow) return refuse(new AppError("BAD_REQUEST", "No sign-in is under way in this browser (or it took over 10 minutes): start again at /auth/login"));
    // the URL as the provider sent the browser to it, on the registered redirect URL rather than on whatever Host the request names
    const currentUrl = new URL(oidc.redirectUrl);
    currentUrl.search = new URL(request.originalUrl, oidc.redirectUrl).search;
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(oidc.provider, currentUrl, { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true });
      claims = tokens.claims();
    } catch (error) {
      const reason = error instanceof client.AuthorizationResponseError ? `the provider answered ${error.error}` : error instanceof Error ? error.message : "it failed";
      return refuse(new AppError("UNAUTHORIZED", `The sign-in did not complete: ${reason}`, { cause: error }));
    }
    if (!claims) return refuse(new AppError("UNAUTHORIZED", "The sign-in did not complete: the provider sent no ID token"));
    const signedIn = userOfClaims(claims, context.config);
    if (!signedIn.ok) return refuse(signedIn.error);
    const { cookieId } = await oidc.sessions.create(signedIn.user, signedIn.via);
    oidc.cookies.set(response, oidc.cookies.session, cookieId, context.config.OIDC_SESSION_HOURS * 3_600_000);
    void audit.record({ actor: signedIn.user, action: "sign_in", client_address: address, outcome: "ok", detail: "oidc" });
    response.redirect(303, flow.return_to);
  };

  router.get(oidc.redirectUrl.pathname, (request, response, next) => {
    void callback(request, response).catch(next);
  });

  router.post("/auth/logout", (request, response, next) => {
    response.set("cache-control", "no-store");
    const cookieId = cookieValue(request, oidc.cookies.session);
    const signedOut = async (): Promise<void> => {
      const session = cookieId ? await oidc.sessions.find(cookieId) : undefined;
      if (session && cookieId) {
        // signing out is a state change too: another site must not sign the user out
        if (!fromThePage(context, auth, request, session)) {
          return sendError(response, new AppError("CSRF_REFUSED", "Signing out needs the page's x-csrf-token, from its origin"));
        }
        await oidc.sessions.end(cookieId);
        void audit.record({ actor: session.user, action: "sign_out", client_address: context.clientAddress(request), outcome: "ok" });
      }
      oidc.cookies.clear(response, oidc.cookies.session);
      response.json({ success: true });
    };
    signedOut().catch(next);
  });

  return router;
}
