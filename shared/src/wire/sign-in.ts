import { z } from "zod";
import { userNameSchema } from "./projects/project-record.js";

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
