import { describe, expect, it } from "vitest";
import type { SignInSession } from "@agent-orchestrator/shared/wire";
import { admissionRules as rules } from "../testing/admission-rules.js";
import { sessionAdmitted, stillAdmitted } from "./admission.js";
import { userOfClaims } from "./user-claims.js";


/** How erin, a contractor, signed in at the provider: the claims the sign-in keeps. */
const erinSignedIn = () => {
  const signedIn = userOfClaims({ sub: "erin", groups: ["contractors"], email: "erin@partner.example", email_verified: true, name: "Erin" }, rules);
  if (!signedIn.ok) throw new Error("erin is let in by the rules");
  return signedIn.via;
};

describe("stillAdmitted", () => {
  it("case 260: lets an AUTH_TOKENS user's sign-in hold only while AUTH_TOKENS names them", () => {
    expect(stillAdmitted("bob", { via: "auth_tokens" }, rules)).toBe(true);
    expect(stillAdmitted("bob", { via: "auth_tokens" }, { ...rules, AUTH_TOKENS: new Map([["alice-token-1111", "alice"]]) })).toBe(false);
    expect(stillAdmitted("bob", { via: "auth_tokens" }, { ...rules, AUTH_TOKENS: undefined })).toBe(false);
  });

  it("keeps the claims the rules read and the name (user_name's default, docs/settings.md), and no others", () => {
    expect(erinSignedIn()).toEqual({ via: "oidc", claims: { sub: "erin", groups: ["contractors"], email: "erin@partner.example", email_verified: true, name: "Erin" } });
  });

  it("case 261: lets a provider's user's sign-in hold only while the kept claims pass the groups and domains in force, and OpenID Connect is on", () => {
    const via = erinSignedIn();
    expect(stillAdmitted("erin", via, rules)).toBe(true);
    expect(stillAdmitted("erin", via, { ...rules, OIDC_ALLOWED_GROUPS: ["staff"] })).toBe(false);
    expect(stillAdmitted("erin", via, { ...rules, OIDC_ALLOWED_DOMAINS: ["example.com"] })).toBe(false);
    expect(stillAdmitted("erin", via, { ...rules, OIDC_ALLOWED_DOMAINS: ["partner.example"] })).toBe(true);
    expect(stillAdmitted("erin", via, { ...rules, OIDC_ISSUER: undefined })).toBe(false);
    // the user is named by another claim now: the kept claims name nobody, or someone else
    expect(stillAdmitted("erin", via, { ...rules, OIDC_USER_CLAIM: "preferred_username" })).toBe(false);
    expect(stillAdmitted("erin", via, { ...rules, OIDC_USER_CLAIM: "email" })).toBe(false);
    // a sign-in by the provider does not hold through AUTH_TOKENS, nor one by AUTH_TOKENS through the provider
    expect(stillAdmitted("bob", via, rules)).toBe(false);
    expect(stillAdmitted("erin", { via: "auth_tokens" }, rules)).toBe(false);
  });
});

describe("sessionAdmitted", () => {
  const session = (sign_in?: SignInSession["sign_in"]): SignInSession => ({
    user: "erin",
    csrf_token: "c".repeat(43),
    signed_in_at: "2026-01-01T00:00:00Z",
    expires_at: "2026-01-01T12:00:00Z",
    ...(sign_in ? { sign_in } : {}),
  });

  it("case 261: ends a browser sign-in whose kept claims no longer pass", () => {
    expect(sessionAdmitted(session(erinSignedIn()), rules)).toBe(true);
    expect(sessionAdmitted(session(erinSignedIn()), { ...rules, OIDC_ALLOWED_GROUPS: ["staff"] })).toBe(false);
  });

  it("case 262: refuses a browser sign-in stored without its claims (its user signs in again), even for a name AUTH_TOKENS holds", () => {
    expect(sessionAdmitted(session(), rules)).toBe(false);
    expect(sessionAdmitted({ ...session(), user: "bob" }, rules)).toBe(false);
  });
});
