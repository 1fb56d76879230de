import { z } from "zod";
import { envInt } from "@agent-orchestrator/shared/runtime";

const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

/** An optional setting that an empty value leaves unset, as compose's `${OIDC_ISSUER:-}` passes it. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

/**
 * The OpenID Connect settings of the gateway's env schema (docs/sign-in.md). All but OIDC_ISSUER only
 * matter when it is set; how they fit together is checked by `oidcConfigProblem` at start.
 */
export const oidcEnvShape = {
  OIDC_ISSUER: optional(z.string().url()).describe(
      "the OpenID provider's issuer URL (its `/.well-known/openid-configuration` is read at start; the gateway stops when it cannot be read). Unset: no OpenID Connect sign-in. `https://`, or `http://` only on a loopback host (a local provider, tests) (docs/sign-in.md)",
    ),
  OIDC_CLIENT_ID: optional(z.string().min(1)).describe("the gateway's client id at the provider; required with OIDC_ISSUER"),
  OIDC_CLIENT_SECRET: optional(z.string().min(1)).describe("the client's secret (sent with `client_secret_basic`); unset: a public client, which the provider must allow (PKCE protects the code either way)"),
  OIDC_REDIRECT_URL: optional(z.string().url()).describe(
      "the callback URL registered at the provider, e.g. `https://agents.example.com/auth/callback`; required with OIDC_ISSUER. Its path is the callback route, its origin the gateway's own for CSRF checks; `https://` makes the cookie `Secure` (`__Host-` name), `http://` is accepted only on a loopback host",
    ),
  OIDC_AUDIENCE: optional(z.string().min(1)).describe("the `aud` a provider's access token (JWT) must carry to be accepted as a bearer token; unset: OIDC_CLIENT_ID"),
  OIDC_USER_CLAIM: z
    .string()
    .min(1)
    .default("sub")
    .describe("the claim (of the ID token at sign-in, of the JWT as a bearer token) that names the user, e.g. `sub`, `email`, `preferred_username` (Keycloak), `oid` (Entra ID)"),
  OIDC_GROUPS_CLAIM: z.string().min(1).default("groups").describe("the claim holding the user's groups (a list of strings), read with OIDC_ALLOWED_GROUPS"),
  OIDC_ALLOWED_GROUPS: z
    .string()
    .optional()
    .transform(list)
    .describe("groups, comma-separated: a user in none of them is refused (403) at sign-in and as a bearer JWT; unset: any group"),
  OIDC_ALLOWED_DOMAINS: z
    .string()
    .optional()
    .transform((value) => list(value).map((domain) => domain.toLowerCase()))
    .describe(
      "e-mail domains, comma-separated (`example.com`): a user whose `email` claim is in none of them, or whose `email_verified` is false, is refused (403); unset: any",
    ),
  OIDC_SCOPES: z
    .string()
    .default("openid profile email")
    .describe("the scopes the sign-in asks for, space-separated; must hold `openid` (add `groups` or the like where the provider needs it for the groups claim)"),
  OIDC_SESSION_HOURS: envInt(12, 1, 720).describe(
    "how long a browser sign-in lasts (the cookie's Max-Age and the `sign_ins` bucket's TTL); a sign-out ends it before, on every replica",
  ),
};

const oidcEnvObject = z.object(oidcEnvShape);
type OidcSettings = z.infer<typeof oidcEnvObject>;

/** Whether `url` names this machine: only there is plain http acceptable (nobody between the two ends). */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Paths of other routes, which the callback must not shadow. */
const takenPaths = ["/api", "/v1", "/mcp", "/ws", "/assets", "/healthz", "/metrics", "/auth/login", "/auth/logout", "/auth/me"];

/** A one-line description of what is wrong with the OpenID Connect settings; undefined when nothing is. */
export function oidcConfigProblem(config: OidcSettings): string | undefined {
  if (config.OIDC_ISSUER === undefined) return undefined;
  const issuer = new URL(config.OIDC_ISSUER);
  if (issuer.protocol !== "https:" && !(issuer.protocol === "http:" && isLoopbackUrl(issuer))) {
    return `Invalid configuration: OIDC_ISSUER must be https:// (http:// only on a loopback host), not ${config.OIDC_ISSUER}`;
  }
  if (config.OIDC_CLIENT_ID === undefined) return "Invalid configuration: OIDC_ISSUER is set but OIDC_CLIENT_ID is not";
  if (config.OIDC_REDIRECT_URL === undefined) return "Invalid configuration: OIDC_ISSUER is set but OIDC_REDIRECT_URL is not";
  const redirect = new URL(config.OIDC_REDIRECT_URL);
  if (redirect.protocol !== "https:" && !(redirect.protocol === "http:" && isLoopbackUrl(redirect))) {
    return `Invalid configuration: OIDC_REDIRECT_URL must be https:// (http:// only on a loopback host), not ${config.OIDC_REDIRECT_URL}`;
  }
  if (redirect.search !== "" || redirect.hash !== "") return "Invalid configuration: OIDC_REDIRECT_URL must have no query or fragment";
  if (takenPaths.some((taken) => redirect.pathname === taken || redirect.pathname.startsWith(`${taken}/`)) || redirect.pathname === "/") {
    return `Invalid configuration: OIDC_REDIRECT_URL's path ${redirect.pathname} is taken by another route; use e.g. /auth/callback`;
  }
  if (!config.OIDC_SCOPES.split(/\s+/).includes("openid")) return "Invalid configuration: OIDC_SCOPES must include openid";
  return undefined;
}
