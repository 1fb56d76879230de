/**
 * A real OpenID provider for the sign-in tests (docs/sign-in.md): `oidc-provider` on a loopback port, with
 * one confidential client registered for the gateway, users with known ids, e-mail addresses and groups,
 * its development login and consent pages (any password), access tokens minted as JWTs for an audience
 * (resource indicators), and key rotation (the provider is started again on the same port with new keys).
 * Tokens no provider would issue (expired, unsigned, HMAC, of another issuer, with a forged signature) are
 * made with jose from the provider's own keys, in `craft`.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import Provider from "oidc-provider";

export interface TestUser {
  /** the display name (`name`; the user id when not given) */
  name?: string;
  email?: string;
  email_verified?: boolean;
  groups?: string[];
}

export interface TestOidcProvider {
  /** the issuer identifier, `http://127.0.0.1:<port>` */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** an access token (JWT) the provider issues for `user` with audience `audience` */
  mint(user: string, audience: string): Promise<string>;
  /** a JWT with `claims` signed by the provider's current key (unless `key` says otherwise), for the cases a provider never issues */
  craft(claims: Record<string, unknown>, options?: { alg?: "RS256" | "HS256" | "none"; key?: "current" | "stranger"; kid?: string }): Promise<string>;
  /** the key id the provider signs with now */
  currentKid(): string;
  /** replaces the provider's signing key with a new one (the old one is no longer published) */
  rotateKeys(): Promise<void>;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
}

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = `key-${crypto.randomUUID().slice(0, 8)}`;
  return { kid, privateKey, privateJwk: { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" } };
}

export async function startOidcProvider(options: { redirectUris: string[]; users: Record<string, TestUser> }): Promise<TestOidcProvider> {
  const clientId = "agent-orchestrator";
  const clientSecret = "test-client-secret-0123456789abcdef";
  const stranger = await newSigningKey();
  let key = await newSigningKey();
  let server: Server | undefined;
  let provider: Provider | undefined;
  let port = 0;

  const start = async (): Promise<void> => {
    const issuer = `http://127.0.0.1:${port}`;
    provider = new Provider(issuer, {
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris, grant_types: ["authorization_code"], response_types: ["code"] }],
      jwks: { keys: [key.privateJwk as never] },
      cookies: { keys: ["test-cookie-key-0123456789"] },
      scopes: ["openid", "profile", "email", "groups"],
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
      // the claims of the scopes in the ID token, as Keycloak, Entra ID and Google put them there
      conformIdTokenClaims: false,
      findAccount: (_context, id) => {
        const user = options.users[id];
        if (!user) return undefined;
        return { accountId: id, claims: () => ({ sub: id, name: id, ...user, ...(user.email ? { email_verified: user.email_verified ?? true } : {}) }) };
      },
      // groups, e-mail and a given name in access tokens too, as a Keycloak mapper or Entra ID's groups claim puts them there
      extraTokenClaims: (_context, token) => {
        const accountId = "accountId" in token ? token.accountId : undefined;
        const user = accountId === undefined ? undefined : options.users[accountId];
        return user ? { ...(user.name ? { name: user.name } : {}), ...(user.email ? { email: user.email } : {}), ...(user.groups ? { groups: user.groups } : {}) } : undefined;
      },
      features: {
        devInteractions: { enabled: true },
        resourceIndicators: {
          enabled: true,
          getResourceServerInfo: (_context, resource) => ({ scope: "api", audience: resource, accessTokenFormat: "jwt", jwt: { sign: { alg: "RS256" } } }),
        },
      },
      pkce: { required: () => true },
      ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    });
    const handle = provider.callback();
    // a browser asks each site for /favicon.ico (Debian's chromium does; the headless shell @sparticuz/chromium
    // brings does not): answered as a real provider answers it, its pages log no 404 in the browser tests
    server = createServer((request, response) => (request.method === "GET" && request.url === "/favicon.ico" ? response.writeHead(204).end() : handle(request, response)));
    server.listen(port, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
  };
  await start();
  // the issuer names the port, which is known only once listening: start again on it
  await stop();
  await start();

  async function stop(): Promise<void> {
    const current = server;
    if (!current) return;
    server = undefined;
    current.closeAllConnections();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  }

  const issuer = () => `http://127.0.0.1:${port}`;
  return {
    get issuer() {
      return issuer();
    },
    clientId,
    clientSecret,
    async mint(user, audience) {
      if (!provider) throw new Error("the provider is stopped");
      const client = await provider.Client.find(clientId);
      if (!client) throw new Error("the gateway's client is not registered");
      const token = new provider.AccessToken({
        accountId: user,
        client,
        scope: "api",
        grantId: `grant-${user}`,
        gty: "authorization_code",
        resourceServer: new provider.ResourceServer(audience, { scope: "api", audience, accessTokenFormat: "jwt", jwt: { sign: { alg: "RS256" } } }),
      });
      return token.save();
    },
    async craft(claims, craftOptions = {}) {
      const alg = craftOptions.alg ?? "RS256";
      const now = Math.floor(Date.now() / 1000);
      const payload = { iss: issuer(), iat: now, exp: now + 300, ...claims };
      if (alg === "none") {
        const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
        return `${part({ alg: "none", typ: "at+jwt" })}.${part(payload)}.`;
      }
      if (alg === "HS256") {
        // the RS256-to-HS256 confusion: the provider's public key as an HMAC secret
        const secret = new TextEncoder().encode(JSON.stringify({ e: key.privateJwk.e, n: key.privateJwk.n, kty: "RSA" }));
        return new SignJWT(payload).setProtectedHeader({ alg: "HS256", kid: key.kid, typ: "at+jwt" }).sign(secret);
      }
      const signer = craftOptions.key === "stranger" ? stranger : key;
      return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: craftOptions.kid ?? key.kid, typ: "at+jwt" }).sign(signer.privateKey);
    },
    currentKid: () => key.kid,
    async rotateKeys() {
      key = await newSigningKey();
      await stop();
      await start();
    },
    close: stop,
  };
}

/** Cookies by name, as a browser would keep them for 127.0.0.1 (the provider's and the gateway's alike). */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute) || /^\s*expires=Thu, 01 Jan 1970/i.test(attribute));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(separator + 1).trim());
    }
  }
}

/**
 * Signs `login` in at a gateway the way a browser does, over plain HTTP: `/auth/login`, the provider's
 * login and consent forms, the callback; every redirect followed by hand with the cookies of `jar`.
 * Resolves with the last answer (the callback's, or the first refusal) and where it pointed.
 */
export async function signInOverHttp(gatewayUrl: string, login: string, jar = new CookieJar(), returnTo = "/"): Promise<{ jar: CookieJar; response: Response }> {
  let url = `${gatewayUrl}/auth/login?return_to=${encodeURIComponent(returnTo)}`;
  let method = "GET";
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, { method, redirect: "manual", headers: { cookie: jar.header() }, ...(body ? { body } : {}) });
    jar.take(response);
    const location = response.headers.get("location");
    const isGatewayCallback = url.startsWith(gatewayUrl) && !url.includes("/auth/login");
    if (isGatewayCallback || (response.status >= 400 && url.startsWith(gatewayUrl))) return { jar, response };
    if (location && response.status >= 300 && response.status < 400) {
      url = new URL(location, url).href;
      method = "GET";
      body = undefined;
      continue;
    }
    // a form of the provider's: the login (any password), then the consent
    const page = await response.text();
    const action = /action="([^"]+)"/.exec(page)?.[1];
    if (response.status !== 200 || !action) throw new Error(`the provider answered ${response.status} at ${url}: ${page.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, "&"), url).href;
    method = "POST";
    body = page.includes('name="login"') ? new URLSearchParams({ prompt: "login", login, password: "any" }) : new URLSearchParams({ prompt: "consent" });
  }
  throw new Error("the sign-in went round in circles");
}
