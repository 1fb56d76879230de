import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { localUser } from "../auth/auth.js";
import { bearerSignIn } from "../auth/bearer-sign-in.js";
import type { SignInServices } from "../auth/sign-in-services.js";
import { authenticationRequired } from "../config.js";
import type { GatewayContext } from "../gateway-context.js";

/** What a git client is told to send when it sent nothing or a wrong credential: git then asks its credential helper. */
export const gitChallenge = 'Basic realm="agent-orchestrator git", charset="UTF-8"';

/**
 * The token of a git client's `Authorization` header: `Bearer <token>` (`git -c http.extraHeader=…`), or `Basic`
 * with the token as the password (what git's credential helpers send; the user name is not read, as GitHub does
 * with its tokens: the token alone says who it is), or as the user name with an empty password. Undefined when
 * there is no header; any other header is a wrong credential as it is.
 */
export function gitToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer?.[1] !== undefined) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(header);
  if (basic?.[1] !== undefined) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const [name, password] = colon === -1 ? [decoded, ""] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
    return password !== "" ? password : name;
  }
  return header;
}

/**
 * Signs a git client in with the tokens `/api` takes (a personal token `aop_…`, an AUTH_TOKENS token, a provider's
 * JWT), under the same limit on wrong tokens per address. Without AUTH_TOKENS and OIDC_ISSUER every caller is the
 * local user, as on `/api`. The sign-in cookie is not taken: git never has it, so no other site's page can push
 * with a visitor's cookie, and cross-site write checks do not apply. A request with no credential or a wrong one
 * is answered 401 with a Basic challenge, so git asks for one.
 */
export function gitSignIn(context: Pick<GatewayContext, "config" | "clientAddress">, auth: SignInServices) {
  const required = authenticationRequired(context.config);
  const signIn = bearerSignIn(context, auth);
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!required) {
      response.locals["user"] = localUser;
      return next();
    }
    const token = gitToken(request.headers.authorization);
    if (token === undefined) {
      response.set("www-authenticate", gitChallenge);
      return next(new AppError("UNAUTHORIZED", "Sign in: a personal token (aop_…) as the password, or `git -c http.extraHeader=\"Authorization: Bearer <token>\"`"));
    }
    void signIn(context.clientAddress(request), token).then((signedIn) => {
      if (!signedIn.ok) {
        if (signedIn.retryAfterSeconds !== undefined) response.set("retry-after", String(signedIn.retryAfterSeconds));
        else if (signedIn.error.code === "UNAUTHORIZED") response.set("www-authenticate", gitChallenge);
        return next(signedIn.error);
      }
      response.locals["user"] = signedIn.user;
      response.locals["signedInVia"] = signedIn.via;
      next();
    }, next);
  };
}
