import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { AuthThrottle, type CredentialCheck } from "./auth-throttle.js";

const tokens = new Map([
  ["alice-token-1111", "alice"],
  ["bob-token-22222", "bob"],
]);
const inTokens: CredentialCheck = async (token) => {
  const user = tokens.get(token);
  return user === undefined ? { ok: false, error: new AppError("UNAUTHORIZED", "A valid bearer token is required") } : { ok: true, user, via: { via: "auth_tokens" } };
};

describe("failed sign-in throttling", async () => {
  it("refuses an address after its wrong tokens in a minute, with the seconds to wait, and lets it try again later", async () => {
    let now = 0;
    const throttle = new AuthThrottle(3, () => now);
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await throttle.signIn("10.0.0.1", `wrong-${attempt}`, inTokens)).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
      now += 1_000;
    }
    expect(await throttle.signIn("10.0.0.1", "wrong-3", inTokens)).toMatchObject({ ok: false, error: { code: "RATE_LIMITED" }, retryAfterSeconds: 57 });
    expect(await throttle.signIn("10.0.0.2", "alice-token-1111", inTokens)).toMatchObject({ ok: true, user: "alice" });
    now = 60_001;
    expect(await throttle.signIn("10.0.0.1", "wrong-4", inTokens)).toMatchObject({ error: { code: "UNAUTHORIZED" } });
  });

  it("does not tell a guesser past the limit that a guess was right: a token new to the address waits too", async () => {
    const throttle = new AuthThrottle(3, () => 0);
    for (let attempt = 0; attempt < 3; attempt++) await throttle.signIn("10.0.0.1", `wrong-${attempt}`, inTokens);
    expect(await throttle.signIn("10.0.0.1", "bob-token-22222", inTokens)).toMatchObject({ ok: false, error: { code: "RATE_LIMITED" } });
  });

  it("keeps letting in a user who signed in from the address before someone there started guessing", async () => {
    const throttle = new AuthThrottle(3, () => 0);
    expect(await throttle.signIn("10.0.0.1", "alice-token-1111", inTokens)).toMatchObject({ ok: true, user: "alice" });
    for (let attempt = 0; attempt < 50; attempt++) await throttle.signIn("10.0.0.1", `wrong-${attempt}`, inTokens);
    expect(await throttle.signIn("10.0.0.1", "alice-token-1111", inTokens)).toMatchObject({ ok: true, user: "alice" });
  });

  it("counts the same wrong token sent again once, so a client retrying a stale token locks nobody out", async () => {
    const throttle = new AuthThrottle(3, () => 0);
    for (let attempt = 0; attempt < 100; attempt++) {
      expect(await throttle.signIn("10.0.0.1", "stale-token-000", inTokens)).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    }
    expect(await throttle.signIn("10.0.0.1", "bob-token-22222", inTokens)).toMatchObject({ ok: true, user: "bob" });
  });

  it("counts an IPv6 client by its /64, so new addresses of one network are no new allowance", async () => {
    const throttle = new AuthThrottle(3, () => 0);
    for (let attempt = 0; attempt < 3; attempt++) await throttle.signIn(`2001:db8:1:2::${attempt + 1}`, `wrong-${attempt}`, inTokens);
    expect(await throttle.signIn("2001:db8:1:2::99", "wrong-x", inTokens)).toMatchObject({ error: { code: "RATE_LIMITED" } });
    expect(await throttle.signIn("2001:db8:1:3::1", "wrong-x", inTokens)).toMatchObject({ error: { code: "UNAUTHORIZED" } });
  });
});

describe("refused attempts of other kinds", () => {
  it("counts refused attempts (a sign-in callback) per address, the same one again once, and says how long to wait past the limit", () => {
    let now = 0;
    const throttle = new AuthThrottle(3, () => now);
    throttle.refused("10.0.0.1", "/auth/callback?code=a");
    throttle.refused("10.0.0.1", "/auth/callback?code=a");
    throttle.refused("10.0.0.1", "/auth/callback?code=b");
    expect(throttle.retryAfterSeconds("10.0.0.1")).toBe(0);
    throttle.refused("10.0.0.1", "/auth/callback?code=c");
    expect(throttle.retryAfterSeconds("10.0.0.1")).toBe(60);
    expect(throttle.retryAfterSeconds("10.0.0.2")).toBe(0);
    now = 60_001;
    expect(throttle.retryAfterSeconds("10.0.0.1")).toBe(0);
  });
});
