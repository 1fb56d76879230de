import type { NatsConnection } from "nats";
import * as client from "openid-client";
import type { GatewayConfig } from "../config.js";
import { isLoopbackUrl } from "../env/oidc-config.js";
import { ProviderJwt } from "./provider-jwt.js";
import { SignInCookies } from "./sign-in-cookie.js";
import { SignInSessions } from "./sign-in-sessions.js";

/** What the gateway holds for OpenID Connect: the discovered provider, its JWT check, the sign-ins and their cookies. */
export interface OidcSignIn {
  /** the provider as discovered at start, with this gateway as its client */
  provider: client.Configuration;
  jwt: ProviderJwt;
  sessions: SignInSessions;
  cookies: SignInCookies;
  /** OIDC_REDIRECT_URL: the callback's path, and the gateway's public origin */
  redirectUrl: URL;
}

export interface OidcStartOptions {
  connection: NatsConnection;
  config: GatewayConfig;
  subjectPrefix: string;
  /** the least time between two fetches of the provider's keys (auth/provider-jwt.ts); jose's default unless set */
  jwksCooldownMs?: number;
}

/**
 * Reads the provider's discovery document and opens the sign-ins bucket; undefined without OIDC_ISSUER.
 * A provider that cannot be read stops the start with one line saying so: a gateway that cannot check a
 * sign-in must not come up half working (its supervisor starts it again, as docker compose's `restart` does).
 */
export async function startOidcSignIn(options: OidcStartOptions): Promise<OidcSignIn | undefined> {
  const { config } = options;
  if (config.OIDC_ISSUER === undefined || config.OIDC_CLIENT_ID === undefined || config.OIDC_REDIRECT_URL === undefined) return undefined;
  const issuer = new URL(config.OIDC_ISSUER);
  let provider: client.Configuration;
  try {
    provider = await client.discovery(
      issuer,
      config.OIDC_CLIENT_ID,
      undefined,
      config.OIDC_CLIENT_SECRET === undefined ? client.None() : client.ClientSecretBasic(config.OIDC_CLIENT_SECRET),
      // plain http only where the settings allowed it: a provider on this machine
      isLoopbackUrl(issuer) && issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : {},
    );
  } catch (error) {
    throw new Error(`Cannot read the OpenID provider's configuration at ${config.OIDC_ISSUER} (OIDC_ISSUER): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const metadata = provider.serverMetadata();
  if (metadata.jwks_uri === undefined) throw new Error(`The OpenID provider at ${config.OIDC_ISSUER} names no jwks_uri: its tokens cannot be checked`);
  const sessions = await SignInSessions.open(options.connection, options.subjectPrefix, config.OIDC_SESSION_HOURS * 3_600_000, config.JS_REPLICAS);
  const redirectUrl = new URL(config.OIDC_REDIRECT_URL);
  return {
    provider,
    jwt: new ProviderJwt(config, { issuer: metadata.issuer, jwksUri: new URL(metadata.jwks_uri), ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }) }),
    sessions,
    cookies: new SignInCookies(redirectUrl),
    redirectUrl,
  };
}
