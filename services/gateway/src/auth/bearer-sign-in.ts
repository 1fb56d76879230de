import { AppError } from "@agent-orchestrator/shared/runtime";
import type { GatewayContext } from "../gateway-context.js";
import type { SignIn } from "./auth-throttle.js";
import { looksLikeJwt } from "./provider-jwt.js";
import type { SignInServices } from "./sign-in-services.js";

/** One kind of bearer token: the sign-in it comes to, or undefined when `token` is not of this kind (the next kind is asked). */
export type BearerResolver = (token: string) => Promise<SignIn | undefined>;

type BearerContext = Pick<GatewayContext, "config">;

/**
 * The kinds of bearer token the gateway accepts, asked in this order; each tells its own tokens apart by
 * their shape, so a token costs at most one check that can succeed:
 * 1. a JWT signed by the OpenID provider (auth/provider-jwt.ts), with OIDC_ISSUER;
 * 2. a personal API token (`aop_…`, tokens/personal-tokens.ts), looked up in KV, and refused once its user is
 *    no longer let in by the rules in force (auth/admission.ts);
 * 3. an AUTH_TOKENS token.
 */
export function bearerResolvers(context: BearerContext, auth: SignInServices): BearerResolver[] {
  const resolvers: BearerResolver[] = [];
  const { oidc } = auth;
  if (oidc) resolvers.push(async (token) => (looksLikeJwt(token) ? oidc.jwt.check(token) : undefined));
  resolvers.push(async (token) => {
    const found = await auth.personalTokens.userOf(token);
    if (!found) return undefined;
    if (!found.admitted) return { ok: false, error: new AppError("UNAUTHORIZED", "This token's user may no longer sign in here (docs/tokens.md)") };
    return { ok: true, user: found.user, via: found.via };
  });
  const tokens = context.config.AUTH_TOKENS;
  if (tokens) {
    resolvers.push(async (token) => {
      const user = tokens.get(token);
      return user === undefined ? undefined : { ok: true, user, via: { via: "auth_tokens" } };
    });
  }
  return resolvers;
}

/** Checks a bearer token against every kind in turn: a token no kind knows is refused like a refused JWT. */
export function bearerCheck(context: BearerContext, auth: SignInServices): (token: string) => Promise<SignIn> {
  const resolvers = bearerResolvers(context, auth);
  return async (token) => {
    for (const resolve of resolvers) {
      const signedIn = await resolve(token);
      if (signedIn) return signedIn;
    }
    return { ok: false, error: new AppError("UNAUTHORIZED", "A valid bearer token is required") };
  };
}

/**
 * `bearerCheck` for a token presented from `address`, under the limit on wrong tokens per address
 * (auth/auth-throttle.ts).
 */
export function bearerSignIn(context: BearerContext, auth: SignInServices) {
  const check = bearerCheck(context, auth);
  return (address: string, token: string): Promise<SignIn> => auth.authFailures.signIn(address, token, check);
}
