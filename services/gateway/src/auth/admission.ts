import type { SignInSession, SignInVia } from "@agent-orchestrator/shared/wire";
import type { GatewayConfig } from "../config.js";
import { userOfClaims } from "./user-claims.js";

/** The settings that decide who may sign in. */
export type AdmissionRules = Pick<GatewayConfig, "AUTH_TOKENS" | "OIDC_ISSUER" | "OIDC_USER_CLAIM" | "OIDC_GROUPS_CLAIM" | "OIDC_ALLOWED_GROUPS" | "OIDC_ALLOWED_DOMAINS">;

/**
 * Whether `user`, who signed in `via` some way, is still let in by the rules in force (docs/tokens.md "Who a
 * token still signs in"): what a sign-in made (a personal token, a browser sign-in) works only while the same
 * sign-in would succeed now.
 * - `auth_tokens`: AUTH_TOKENS still names the user;
 * - `oidc`: OpenID Connect is on and the claims kept from the sign-in still name the user and pass
 *   OIDC_ALLOWED_GROUPS and OIDC_ALLOWED_DOMAINS.
 * A personal token stored before the way was kept is read as `auth_tokens` (migrations/token-sign-in-migration.ts).
 */
export function stillAdmitted(user: string, via: SignInVia, rules: AdmissionRules): boolean {
  if (via.via === "auth_tokens") return rules.AUTH_TOKENS !== undefined && [...rules.AUTH_TOKENS.values()].includes(user);
  if (rules.OIDC_ISSUER === undefined) return false;
  const checked = userOfClaims(via.claims, rules);
  return checked.ok && checked.user === user;
}

/** Whether a browser sign-in still holds under the rules in force; one stored without its claims does not (its user signs in again). */
export function sessionAdmitted(session: SignInSession, rules: AdmissionRules): boolean {
  return session.sign_in?.via === "oidc" && stillAdmitted(session.user, session.sign_in, rules);
}
