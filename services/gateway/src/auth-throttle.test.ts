import { describe, expect, it } from "vitest";
import { AuthThrottle } from "./auth-throttle.js";

describe("failed sign-in throttling per address", () => {
  it("refuses an address after its failures in a minute, with the seconds to wait, and lets it try again later", () => {
    let now = 0;
    const throttle = new AuthThrottle(3, () => now);
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(throttle.retryAfterSeconds("10.0.0.1")).toBe(0);
      throttle.fail("10.0.0.1");
      now += 1_000;
    }
    expect(throttle.retryAfterSeconds("10.0.0.1")).toBe(57);
    expect(throttle.retryAfterSeconds("10.0.0.2")).toBe(0);
    now = 60_001;
    expect(throttle.retryAfterSeconds("10.0.0.1")).toBe(0);
  });
});
