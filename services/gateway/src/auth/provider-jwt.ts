import { AppError } from "@agent-orchestrator/shared/runtime";
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { GatewayConfig } from "../config.js";
import type { SignIn } from "./auth-throttle.js";
import { userOfClaims } from "./user-claims.js";

/**
 * The signature algorithms a provider's JWT may use: asymmetric only. `none` would need no key at all and
 * an HS* token would be checked with a secret the JWKS cannot hold (the classic RS256-to-HS256 confusion).
 */
export const jwtAlgorithms = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

/** Seconds by which the gateway's and the provider's clocks may differ when `exp` and `nbf` are checked. */
export const jwtClockToleranceSeconds = 30;

/** Three base64url parts: a JWT (possibly an unsigned one, which is refused as one); anything else is some other kind of token. */
export const looksLikeJwt = (token: string): boolean => /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

export interface ProviderJwtOptions {
  /** the discovered issuer identifier (the `iss` every token must carry) */
  issuer: string;
  /** the provider's key set (`jwks_uri` of its discovery document) */
  jwksUri: URL;
  /**
   * the least time between two fetches of the key set, which a token signed with a key not in it (a
   * rotation) triggers; jose's 30 s unless a test needs to see a rotation at once
   */
  cooldownMs?: number;
}

/**
 * Access tokens (or any JWT) the OpenID provider signed for this gateway, accepted as bearer tokens
 * (docs/sign-in.md "Bearer JWTs"): signed by a key of the provider's JWKS with an allowed algorithm, `iss`
 * the issuer, `aud` holding OIDC_AUDIENCE, inside `nbf`..`exp`; the user is OIDC_USER_CLAIM, under the
 * sign-in's group and domain rules. A key the provider rotated in is fetched when a token names it; one it
 * rotated out is gone with the next fetch.
 */
export class ProviderJwt {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    private readonly config: GatewayConfig,
    private readonly options: ProviderJwtOptions,
  ) {
    this.keys = createRemoteJWKSet(options.jwksUri, options.cooldownMs === undefined ? {} : { cooldownDuration: options.cooldownMs });
  }

  /** The user a JWT names, or why it is refused: UNAUTHORIZED for any token that is not good, SERVICE_UNAVAILABLE when the keys cannot be fetched. */
  async check(token: string): Promise<SignIn> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.options.issuer,
        audience: this.config.OIDC_AUDIENCE ?? this.config.OIDC_CLIENT_ID,
        algorithms: jwtAlgorithms,
        clockTolerance: jwtClockToleranceSeconds,
      });
      return userOfClaims(payload, this.config);
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, error: new AppError("UNAUTHORIZED", "The bearer token has expired") };
      if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError)) {
        return { ok: false, error: new AppError("SERVICE_UNAVAILABLE", "The OpenID provider's keys could not be fetched to check the bearer token", { cause: error }) };
      }
      return { ok: false, error: new AppError("UNAUTHORIZED", "The bearer token is not a valid token of the OpenID provider for this gateway") };
    }
  }
}
