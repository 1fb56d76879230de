import { Router, type Request } from "express";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { PersonalTokenCreateBody, personalTokenPrefix } from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { bearerToken, currentSignIn, currentUser } from "../auth/auth.js";
import { authenticationRequired } from "../config.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { personalTokenIdPattern, type PersonalTokens } from "./personal-tokens.js";

/**
 * Personal API tokens (docs/tokens.md): the caller's own, made, listed and revoked. Whoever signed in makes
 * them, by AUTH_TOKENS, the sign-in cookie or a provider's JWT, but not with a personal token: a leaked token
 * cannot mint successors that outlive its revocation. Without sign-in (the local single-user mode) there are
 * none: every caller is `local` already and a token would protect nothing.
 */
export function tokensRoutes(context: GatewayContext, { tokens, audit }: { tokens: PersonalTokens; audit: AuditPublisher }): Router {
  const router = Router();

  router.post("/api/tokens", audited(context, audit, "token_created"), async (request, response) => {
    requireSignedIn(context);
    if (signedInByPersonalToken(request)) throw new AppError("FORBIDDEN", "A personal token cannot make tokens; sign in another way");
    const { name, expires_at } = parseInput(PersonalTokenCreateBody, request.body, "body");
    const via = currentSignIn(response);
    if (!via) throw new AppError("FORBIDDEN", "Sign in to make a token");
    const created = await tokens.create(currentUser(response), name, expires_at, via);
    noteAudit(response, { target: created.id });
    response.status(201).json({ success: true, ...created });
  });

  router.get("/api/tokens", async (_request, response) => {
    requireSignedIn(context);
    response.json({ success: true, tokens: await tokens.list(currentUser(response)) });
  });

  router.delete("/api/tokens/:tokenId", audited(context, audit, "token_revoked", (request) => ({ target: String(request.params["tokenId"]).slice(0, 64) })), async (request, response) => {
    requireSignedIn(context);
    const id = request.params["tokenId"];
    // another user's token answers like a missing one, so ids cannot be probed
    if (typeof id !== "string" || !personalTokenIdPattern.test(id) || !(await tokens.revoke(currentUser(response), id))) {
      throw new AppError("NOT_FOUND", "No such token");
    }
    response.json({ success: true });
  });
  return router;
}

function requireSignedIn(context: Pick<GatewayContext, "config">): void {
  if (!authenticationRequired(context.config)) {
    throw new AppError("FORBIDDEN", "Personal tokens need sign-in (AUTH_TOKENS or OpenID Connect); this gateway lets every caller in as `local`");
  }
}

/** A bearer header signs a request in before any cookie (auth/auth.ts), so a personal token there is how this request signed in. */
function signedInByPersonalToken(request: Request): boolean {
  const header = request.headers.authorization;
  return header !== undefined && bearerToken(header).startsWith(personalTokenPrefix);
}
