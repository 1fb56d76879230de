import { z } from "zod";
import { userNameSchema } from "./projects/project-record.js";

/** A claim kept from a provider's sign-in: a string, a boolean or a list of strings (groups). */
const KeptClaim = z.union([z.string(), z.boolean(), z.array(z.string())]);

/**
 * How a user signed in, kept with what that sign-in made (a personal token, a browser sign-in) so it is checked
 * again on every use against the rules in force then (docs/tokens.md "Who a token still signs in"):
 * `auth_tokens` holds while AUTH_TOKENS names the user; `oidc` while OpenID Connect is on and the claims kept
 * from the sign-in (the user, groups, e-mail claims) pass OIDC_ALLOWED_GROUPS and OIDC_ALLOWED_DOMAINS.
 */
export const SignInVia = z.discriminatedUnion("via", [
  z.object({ via: z.literal("auth_tokens") }),
  z.object({ via: z.literal("oidc"), claims: z.record(z.string(), KeptClaim) }),
]);
export type SignInVia = z.infer<typeof SignInVia>;

/**
 * OpenID Connect sign-in (docs/sign-in.md): a browser signs in at the organisation's provider and the
 * gateway keeps the sign-in as one record in its `sign_ins` bucket, under the sha256 of the random id its
 * cookie carries (never the id itself), so any replica serves it and a sign-out ends it everywhere at once.
 */
export const SignInSession = z.object({
  user: userNameSchema,
  /** the CSRF token the page sends as `x-csrf-token` on every state-changing request signed in by this cookie */
  csrf_token: z.string().min(32),
  signed_in_at: z.string(),
  expires_at: z.string(),
  /** the provider's claims at sign-in, checked again on every request; a sign-in stored without them is refused */
  sign_in: SignInVia.optional(),
});
export type SignInSession = z.infer<typeof SignInSession>;

/** `GET /auth/me`: how this gateway signs people in, and who the caller is. */
export const SignInStatus = z.object({
  success: z.literal(true),
  /** OpenID Connect sign-in is on: the page shows "Sign in" (`GET /auth/login`) to a caller who is not signed in */
  oidc: z.boolean(),
  /** AUTH_TOKENS are set: a bearer token from the list is accepted */
  tokens: z.boolean(),
  /** the caller, or null when the request carried no credential that this gateway accepts */
  user: userNameSchema.nullable(),
  /** how the caller is known: the sign-in cookie, a bearer token (a token or a provider's JWT), or the single-user local mode */
  via: z.enum(["cookie", "bearer", "local"]).nullable(),
  /** with `via: "cookie"`: the value to send as `x-csrf-token` on every POST, PUT, PATCH and DELETE */
  csrf_token: z.string().optional(),
});
export type SignInStatus = z.infer<typeof SignInStatus>;
