import { AppError, getOwn } from "@agent-orchestrator/shared";
import type { GatewayConfig } from "../config.js";
import type { SignIn } from "./auth-throttle.js";

/** The names a user may have: what AUTH_TOKENS allows, and what a project's member list can hold. */
const userPattern = /^[A-Za-z0-9_.@-]{1,128}$/;

type Rules = Pick<GatewayConfig, "OIDC_USER_CLAIM" | "OIDC_GROUPS_CLAIM" | "OIDC_ALLOWED_GROUPS" | "OIDC_ALLOWED_DOMAINS">;

/**
 * The user that the claims of an ID token (at sign-in) or of a provider's JWT (a bearer token) name, under
 * the same rules for both: OIDC_USER_CLAIM must be a string of a user name's characters, and a user outside
 * OIDC_ALLOWED_GROUPS or OIDC_ALLOWED_DOMAINS is refused (FORBIDDEN), so a token cannot do what a sign-in could not.
 */
export function userOfClaims(claims: Readonly<Record<string, unknown>>, rules: Rules): SignIn {
  const user = getOwn(claims, rules.OIDC_USER_CLAIM);
  if (typeof user !== "string" || !userPattern.test(user)) {
    return { ok: false, error: new AppError("UNAUTHORIZED", `The token's ${rules.OIDC_USER_CLAIM} claim does not name a user (letters, digits, _ . @ -, at most 128)`) };
  }
  if (rules.OIDC_ALLOWED_GROUPS.length > 0) {
    const groups = getOwn(claims, rules.OIDC_GROUPS_CLAIM);
    const held = Array.isArray(groups) ? groups.filter((group): group is string => typeof group === "string") : [];
    if (!held.some((group) => rules.OIDC_ALLOWED_GROUPS.includes(group))) {
      return { ok: false, error: new AppError("FORBIDDEN", `${user} is in none of the groups allowed here`) };
    }
  }
  if (rules.OIDC_ALLOWED_DOMAINS.length > 0) {
    const email = getOwn(claims, "email");
    const at = typeof email === "string" ? email.lastIndexOf("@") : -1;
    const domain = typeof email === "string" && at > 0 ? email.slice(at + 1).toLowerCase() : undefined;
    if (domain === undefined || getOwn(claims, "email_verified") === false || !rules.OIDC_ALLOWED_DOMAINS.includes(domain)) {
      return { ok: false, error: new AppError("FORBIDDEN", `${user} has no verified e-mail address in a domain allowed here`) };
    }
  }
  return { ok: true, user };
}
