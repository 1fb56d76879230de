import { describe, expect, it } from "vitest";
import { gatewayConfigProblem, gatewayEnvSchema, listenHost } from "../config.js";

const oidc = { OIDC_ISSUER: "https://id.example.com/realms/acme", OIDC_CLIENT_ID: "agents", OIDC_REDIRECT_URL: "https://agents.example.com/auth/callback" };
const problemOf = (env: Record<string, string>) => gatewayConfigProblem(gatewayEnvSchema.parse(env));

describe("OpenID Connect settings", () => {
  it("accept an https issuer and redirect URL, and listen on every interface like AUTH_TOKENS does", () => {
    expect(problemOf(oidc)).toBeUndefined();
    expect(listenHost(gatewayEnvSchema.parse(oidc))).toBe("0.0.0.0");
    expect(listenHost(gatewayEnvSchema.parse({}))).toBe("127.0.0.1");
  });

  it("take an empty value as unset, as compose passes `${OIDC_ISSUER:-}`", () => {
    expect(gatewayEnvSchema.parse({ OIDC_ISSUER: "", OIDC_CLIENT_SECRET: "" })).toMatchObject({ OIDC_ISSUER: undefined, OIDC_CLIENT_SECRET: undefined });
    expect(problemOf({ OIDC_ISSUER: "" })).toBeUndefined();
  });

  it("accept plain http only on a loopback host", () => {
    expect(problemOf({ ...oidc, OIDC_ISSUER: "http://127.0.0.1:9000", OIDC_REDIRECT_URL: "http://localhost:3000/auth/callback" })).toBeUndefined();
    expect(problemOf({ ...oidc, OIDC_ISSUER: "http://id.example.com" })).toMatch(/^Invalid configuration: OIDC_ISSUER must be https/);
    expect(problemOf({ ...oidc, OIDC_REDIRECT_URL: "http://agents.example.com/auth/callback" })).toMatch(/OIDC_REDIRECT_URL must be https/);
    expect(problemOf({ ...oidc, OIDC_ISSUER: "http://127.0.0.1.evil.example" })).toMatch(/OIDC_ISSUER must be https/);
  });

  it("name what is missing or wrong in one line", () => {
    const { OIDC_CLIENT_ID: _clientId, ...withoutClient } = oidc;
    expect(problemOf(withoutClient)).toBe("Invalid configuration: OIDC_ISSUER is set but OIDC_CLIENT_ID is not");
    expect(problemOf({ ...oidc, OIDC_REDIRECT_URL: "https://agents.example.com/api/callback" })).toMatch(/taken by another route/);
    expect(problemOf({ ...oidc, OIDC_REDIRECT_URL: "https://agents.example.com/auth/me" })).toMatch(/taken by another route/);
    expect(problemOf({ ...oidc, OIDC_SCOPES: "profile email" })).toMatch(/OIDC_SCOPES must include openid/);
    for (const problem of [problemOf(withoutClient), problemOf({ ...oidc, OIDC_ISSUER: "http://id.example.com" })]) expect(problem).not.toContain("\n");
  });
});
