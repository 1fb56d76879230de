import { describe, expect, it } from "vitest";
import { AuthThrottle } from "./auth-throttle.js";

const tokens = new Map([
  ["alice-token-1111", "alice"],
  ["bob-token-22222", "bob"],
]);

describe("failed sign-in throttling", () => {
  it("refuses an address after its wrong tokens in a minute, with the seconds to wait, and lets it try again later", () => {
    let now = 0;
    const throttle = new AuthThrottle(3, () => now);
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(throttle.signIn(tokens, "10.0.0.1", `wrong-${attempt}`)).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
      now += 1_000;
    }
    expect(throttle.signIn(tokens, "10.0.0.1", "wrong-3")).toMatchObject({ ok: false, error: { code: "RATE_LIMITED" }, retryAfterSeconds: 57 });
    expect(throttle.signIn(tokens, "10.0.0.2", "alice-token-1111")).toEqual({ ok: true, user: "alice" });
    now = 60_001;
    expect(throttle.signIn(tokens, "10.0.0.1", "wrong-4")).toMatchObject({ error: { code: "UNAUTHORIZED" } });
  });

  it("does not tell a guesser past the limit that a guess was right: a token new to the address waits too", () => {
    const throttle = new AuthThrottle(3, () => 0);
    for (let attempt = 0; attempt < 3; attempt++) throttle.signIn(tokens, "10.0.0.1", `wrong-${attempt}`);
    expect(throttle.signIn(tokens, "10.0.0.1", "bob-token-22222")).toMatchObject({ ok: false, error: { code: "RATE_LIMITED" } });
  });

  it("keeps letting in a user who signed in from the address before someone there started guessing", () => {
    const throttle = new AuthThrottle(3, () => 0);
    expect(throttle.signIn(tokens, "10.0.0.1", "alice-token-1111")).toEqual({ ok: true, user: "alice" });
    for (let attempt = 0; attempt < 50; attempt++) throttle.signIn(tokens, "10.0.0.1", `wrong-${attempt}`);
    expect(throttle.signIn(tokens, "10.0.0.1", "alice-token-1111")).toEqual({ ok: true, user: "alice" });
  });

  it("counts the same wrong token sent again once, so a client retrying a stale token locks nobody out", () => {
    const throttle = new AuthThrottle(3, () => 0);
    for (let attempt = 0; attempt < 100; attempt++) {
      expect(throttle.signIn(tokens, "10.0.0.1", "stale-token-000")).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    }
    expect(throttle.signIn(tokens, "10.0.0.1", "bob-token-22222")).toEqual({ ok: true, user: "bob" });
  });

  it("counts an IPv6 client by its /64, so new addresses of one network are no new allowance", () => {
    const throttle = new AuthThrottle(3, () => 0);
    for (let attempt = 0; attempt < 3; attempt++) throttle.signIn(tokens, `2001:db8:1:2::${attempt + 1}`, `wrong-${attempt}`);
    expect(throttle.signIn(tokens, "2001:db8:1:2::99", "wrong-x")).toMatchObject({ error: { code: "RATE_LIMITED" } });
    expect(throttle.signIn(tokens, "2001:db8:1:3::1", "wrong-x")).toMatchObject({ error: { code: "UNAUTHORIZED" } });
  });
});
