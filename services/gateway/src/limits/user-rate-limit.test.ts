import { describe, expect, it } from "vitest";
import { UserRateLimit } from "./user-rate-limit.js";

describe("the per-user request budget", () => {
  it("takes a batch's cost all or none, and says how long until it would pass", () => {
    let now = 0;
    const limit = new UserRateLimit(60, { now: () => now });
    expect(limit.take("ada", 58)).toBeUndefined();
    const refused = limit.take("ada", 5);
    expect(refused?.error.code).toBe("RATE_LIMITED");
    expect(refused?.retryAfterSeconds).toBe(3);
    // nothing was taken by the refusal: the two left are still there
    expect(limit.take("ada", 2)).toBeUndefined();
    expect(limit.take("ada")).toBeDefined();
    now = 1_000;
    expect(limit.take("ada")).toBeUndefined();
  });

  it("keeps users apart", () => {
    const limit = new UserRateLimit(1, { now: () => 0 });
    expect(limit.take("ada")).toBeUndefined();
    expect(limit.take("ada")).toBeDefined();
    expect(limit.take("bob")).toBeUndefined();
  });

  it("refuses a batch larger than a whole minute's budget, which no wait would let through", () => {
    const limit = new UserRateLimit(10, { now: () => 0 });
    expect(limit.take("ada", 11)?.error.message).toContain("more than the 10 a minute");
    expect(limit.take("ada", 10)).toBeUndefined();
  });
});
