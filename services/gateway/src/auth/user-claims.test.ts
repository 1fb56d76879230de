import { describe, expect, it } from "vitest";
import { userOfClaims } from "./user-claims.js";

const rules = { OIDC_USER_CLAIM: "sub", OIDC_GROUPS_CLAIM: "groups", OIDC_ALLOWED_GROUPS: [] as string[], OIDC_ALLOWED_DOMAINS: [] as string[] };

describe("userOfClaims", () => {
  it("names the user by OIDC_USER_CLAIM", () => {
    expect(userOfClaims({ sub: "ada" }, rules)).toEqual({ ok: true, user: "ada", via: { via: "oidc", claims: { sub: "ada" } } });
    expect(userOfClaims({ sub: "x", email: "ada@example.com" }, { ...rules, OIDC_USER_CLAIM: "email" })).toMatchObject({ ok: true, user: "ada@example.com" });
  });

  it("refuses a claim that is missing, not a string, inherited, or holds characters a user name may not", () => {
    for (const claims of [{}, { sub: 42 }, { sub: "a b" }, { sub: "a/b" }, { sub: "x".repeat(129) }, Object.create({ sub: "ada" }) as Record<string, unknown>]) {
      expect(userOfClaims(claims, rules)).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
    }
  });

  it("lets in only members of an allowed group when groups are set", () => {
    const staffOnly = { ...rules, OIDC_ALLOWED_GROUPS: ["staff"] };
    expect(userOfClaims({ sub: "ada", groups: ["guests", "staff"] }, staffOnly)).toMatchObject({ ok: true, user: "ada" });
    for (const groups of [undefined, [], ["guests"], "staff"]) {
      expect(userOfClaims({ sub: "ada", groups }, staffOnly)).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    }
  });

  it("lets in only a verified address of an allowed domain when domains are set", () => {
    const ours = { ...rules, OIDC_ALLOWED_DOMAINS: ["example.com"] };
    expect(userOfClaims({ sub: "ada", email: "Ada@Example.COM" }, ours)).toMatchObject({ ok: true, user: "ada" });
    expect(userOfClaims({ sub: "ada", email: "ada@example.com", email_verified: true }, ours)).toMatchObject({ ok: true });
    for (const claims of [{ email: "ada@example.com", email_verified: false }, { email: "ada@example.com.evil.org" }, { email: "ada@sub.example.com" }, { email: "example.com" }, {}]) {
      expect(userOfClaims({ sub: "ada", ...claims }, ours)).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    }
  });

  it("keeps, with the sign-in, the claims the rules read (groups, e-mail) even when no rule reads them yet, and the name, own properties only", () => {
    const claims = { sub: "ada", groups: ["staff", 7], email: "ada@example.com", email_verified: true, name: "Ada", nonce: "n" };
    expect(userOfClaims(claims, rules)).toEqual({ ok: true, user: "ada", via: { via: "oidc", claims: { sub: "ada", groups: ["staff"], email: "ada@example.com", email_verified: true, name: "Ada" } } });
    const inherited = Object.assign(Object.create({ groups: ["staff"] }) as Record<string, unknown>, { sub: "ada" });
    expect(userOfClaims(inherited, rules)).toEqual({ ok: true, user: "ada", via: { via: "oidc", claims: { sub: "ada" } } });
  });

  it("case 258: keeps the claims that name the person as answers: one line, at most 200 characters, a name that is no string left out", () => {
    const claims = { sub: "erin", name: `Erin\n${"x".repeat(100_000)}`, given_name: "Erin\u202E", family_name: ["Example"], preferred_username: "\u0000" };
    expect(userOfClaims(claims, rules)).toEqual({ ok: true, user: "erin", via: { via: "oidc", claims: { sub: "erin", name: `Erin ${"x".repeat(195)}`, given_name: "Erin" } } });
  });

  it("keeps the user claim as it is when it is also a name claim, so the sign-in is checked again against the same user", () => {
    const claims = { sub: "x", preferred_username: "erin.example" };
    expect(userOfClaims(claims, { ...rules, OIDC_USER_CLAIM: "preferred_username" })).toEqual({ ok: true, user: "erin.example", via: { via: "oidc", claims: { preferred_username: "erin.example" } } });
  });
});
