import { z } from "zod";
import { SignInVia } from "./sign-in.js";

/**
 * Personal API tokens (docs/tokens.md): a signed-in user makes tokens for scripts, `/v1` and MCP clients. The
 * token itself is shown once, in the reply to its creation; the gateway keeps only its sha256.
 */

/** What every personal token starts with, so a leaked one is recognised (secret scanners, logs) and the gateway looks only these up. */
export const personalTokenPrefix = "aop_";

/** `POST /api/tokens` body: a name to tell the token apart, and an optional expiry (an ISO time in the future). */
export const PersonalTokenCreateBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    expires_at: z.string().datetime({ offset: true }).optional(),
  })
  .strict();
export type PersonalTokenCreateBody = z.infer<typeof PersonalTokenCreateBody>;

/** A token as its owner sees it in `GET /api/tokens`: never the token or its hash. */
export const PersonalTokenView = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
});
export type PersonalTokenView = z.infer<typeof PersonalTokenView>;

/**
 * A token as stored in the gateway's `personal_tokens` bucket, under both `hash.<sha256>` (the per-request
 * look-up) and `user.<owner, base64url>.<id>` (the owner's list and revocation); `hash` is the sha256 of the
 * token in hex, never the token. `sign_in` is how its user signed in to make it, checked again on every use;
 * a token stored before it was kept has none (docs/tokens.md "Who a token still signs in").
 */
export const PersonalTokenRecord = PersonalTokenView.extend({ user: z.string(), hash: z.string().regex(/^[0-9a-f]{64}$/), sign_in: SignInVia.optional() });
export type PersonalTokenRecord = z.infer<typeof PersonalTokenRecord>;
