import type { SignInVia } from "@agent-orchestrator/shared/wire";
import type { AuthThrottle } from "./auth-throttle.js";
import type { OidcSignIn } from "./oidc-sign-in.js";

/** What a personal token that is ours and unexpired comes to: its user, and whether the rules in force still let that user in. */
export type PersonalTokenUse = { user: string; id: string } & ({ admitted: true; via: SignInVia } | { admitted: false });

/** The personal tokens as sign-in reads them (tokens/personal-tokens.ts holds them): the use a bearer token comes to, if it is one. */
export interface PersonalTokenLookup {
  userOf(token: string): Promise<PersonalTokenUse | undefined>;
}

/** What tells who a caller is, shared by HTTP, `/auth/*` and the WebSocket (wired in gateway-service.ts). */
export interface SignInServices {
  /** bearer tokens checked under a limit on wrong ones per client address */
  authFailures: AuthThrottle;
  /** OpenID Connect sign-in and the provider's JWTs (docs/sign-in.md); undefined without OIDC_ISSUER */
  oidc: OidcSignIn | undefined;
  /** personal API tokens (docs/tokens.md), looked up in KV on every request that bears one */
  personalTokens: PersonalTokenLookup;
}
