import type { AdmissionRules } from "../auth/admission.js";

/**
 * The sign-in rules the admission tests run with: alice and bob by AUTH_TOKENS, and a provider whose staff and
 * contractors groups are let in (docs/tokens.md "Who a token still signs in").
 */
export const admissionRules: AdmissionRules = {
  AUTH_TOKENS: new Map([
    ["alice-token-1111", "alice"],
    ["bob-token-22222", "bob"],
  ]),
  OIDC_ISSUER: "https://id.example.com",
  OIDC_USER_CLAIM: "sub",
  OIDC_GROUPS_CLAIM: "groups",
  OIDC_ALLOWED_GROUPS: ["staff", "contractors"],
  OIDC_ALLOWED_DOMAINS: [],
};
