import { describe, expect, it } from "vitest";
import { gatewayFixture } from "../testing/gateway-fixture.js";

// a gateway of its own: this case uses up its address's allowance of wrong tokens, which every other case needs
const fixture = gatewayFixture({ AUTH_FAILURES_PER_MINUTE: "3" });

const withToken = (token: string, path: string) => fetch(`${fixture.url()}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe("wrong personal tokens", () => {
  it("case 201: counts wrong personal tokens like any wrong token: past AUTH_FAILURES_PER_MINUTE a new one gets 429", async () => {
    // alice signs in from this address first, with her AUTH_TOKENS token
    expect((await fixture.api("alice", "/api/tokens")).status).toBe(200);
    const statuses: number[] = [];
    for (let guess = 0; guess < 4; guess++) statuses.push((await withToken(`aop_${"x".repeat(42)}${guess}`, "/api/tokens")).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await withToken(`aop_${"y".repeat(43)}`, "/api/tokens");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    // a token that signed in from here before still works
    expect((await fixture.api("alice", "/api/tokens")).status).toBe(200);
  });
});
