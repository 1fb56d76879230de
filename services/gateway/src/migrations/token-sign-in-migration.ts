import type { PersonalTokenRecord, SignInVia } from "@agent-orchestrator/shared/wire";

/**
 * How a personal token's user signed in to make it, which is checked again on every use (auth/admission.ts). A token
 * stored before tokens kept it has no `sign_in`: it is read as made by an AUTH_TOKENS sign-in, the only kind that can
 * be checked without the provider's claims, so such a token of a provider's user stops working and they make a new
 * one (docs/tokens.md "Who a token still signs in"). It can go, with `sign_in` becoming required in
 * PersonalTokenRecord, once no such token is left: `npm run tokens:list` shows them with `via` null.
 */
export const tokenSignIn = (record: PersonalTokenRecord): SignInVia => record.sign_in ?? { via: "auth_tokens" };
