import { AppError } from "@agent-orchestrator/shared/runtime";
import { asAnswer, getOwn, type SignInVia } from "@agent-orchestrator/shared/wire";
import type { GatewayConfig } from "../config.js";
import type { SignIn } from "./auth-throttle.js";
import { displayNameClaims } from "./display-name.js";

/** The names a user may have: what AUTH_TOKENS allows, and what a project's member list can hold. */
const userPattern = /^[A-Za-z0-9_.@-]{1,128}$/;

type Rules = Pick<GatewayConfig, "OIDC_USER_CLAIM" | "OIDC_GROUPS_CLAIM" | "OIDC_ALLOWED_GROUPS" | "OIDC_ALLOWED_DOMAINS">;

/**
 * The user that the claims of an ID token (at sign-in) or of a provider's JWT (a bearer token) name, under
 * the same rules for both: OIDC_USER_CLAIM must be a string of a user name's characters, and a user outside
 * OIDC_ALLOWED_GROUPS or OIDC_ALLOWED_DOMAINS is refused (FORBIDDEN), so a token cannot do what a sign-in could not.
 * A sign-in it lets through carries the claims these rules read (`keptClaims`), so what the sign-in makes is
 * checked again against the rules in force when it is used (auth/admission.ts).
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
  return { ok: true, user, via: { via: "oidc", claims: keptClaims(claims, rules) } };
}

/**
 * The claims the rules above read (the user, the groups, `email`, `email_verified`), whether or not a rule
 * reads them now: an operator who narrows the groups or domains later has them to check against. And the
 * claims that name the person (auth/display-name.ts), as answers (bounded, no control or bidi character), so
 * whatever the sign-in makes (a browser sign-in, a personal token) knows `user_name`'s default.
 */
export function keptClaims(claims: Readonly<Record<string, unknown>>, rules: Pick<Rules, "OIDC_USER_CLAIM" | "OIDC_GROUPS_CLAIM">): OidcClaims {
  const kept: Array<[string, OidcClaims[string]]> = [];
  for (const name of new Set([rules.OIDC_USER_CLAIM, rules.OIDC_GROUPS_CLAIM, "email", "email_verified"])) {
    const value = getOwn(claims, name);
    if (typeof value === "string" || typeof value === "boolean") kept.push([name, value]);
    else if (Array.isArray(value)) kept.push([name, value.filter((item): item is string => typeof item === "string")]);
  }
  const read = new Set(kept.map(([name]) => name));
  for (const name of displayNameClaims) {
    const value = getOwn(claims, name);
    const answer = typeof value === "string" && !read.has(name) ? asAnswer(value) : undefined;
    if (answer !== undefined) kept.push([name, answer]);
  }
  // own properties only, whatever the claims are named
  return Object.fromEntries(kept);
}

type OidcClaims = Extract<SignInVia, { via: "oidc" }>["claims"];
