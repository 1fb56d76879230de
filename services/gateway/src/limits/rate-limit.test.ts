import type { NextFunction, Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { rateLimit } from "./rate-limit.js";
import { UserRateLimit } from "./user-rate-limit.js";

/** A minimal response that records what the middleware did. */
function fakeResponse(user: string) {
  const record = { headers: {} as Record<string, string> };
  const response = {
    locals: { user },
    set(name: string, value: string) {
      record.headers[name] = value;
      return this;
    },
  };
  return { response: response as unknown as Response, record };
}

describe("rateLimit", () => {
  const run = (middleware: ReturnType<typeof rateLimit>, user: string, body: unknown = {}) => {
    const { response, record } = fakeResponse(user);
    let passed = false;
    let error: unknown;
    middleware({ body } as Request, response, ((given?: unknown) => {
      error = given;
      passed = given === undefined;
    }) as NextFunction);
    return { passed, error, record };
  };

  it("lets a user make perMinute requests, then answers 429 with retry-after, and refills over time", () => {
    let time = 0;
    const limit = rateLimit(new UserRateLimit(3, { now: () => time }));
    expect([run(limit, "ada").passed, run(limit, "ada").passed, run(limit, "ada").passed]).toEqual([true, true, true]);
    const refused = run(limit, "ada");
    expect(refused.passed).toBe(false);
    expect(refused.error).toMatchObject({ code: "RATE_LIMITED" });
    expect(Number(refused.record.headers["retry-after"])).toBeGreaterThan(0);
    expect(run(limit, "bob").passed).toBe(true);
    time += 20_000;
    expect(run(limit, "ada").passed).toBe(true);
  });

  it("charges what `cost` says for a request, from the same budget as every other door", () => {
    const budget = new UserRateLimit(10, { now: () => 0 });
    const batches = rateLimit(budget, (request) => (Array.isArray(request.body) ? request.body.length : 1));
    expect(run(batches, "ada", new Array(6).fill({})).passed).toBe(true);
    expect(budget.take("ada", 4)).toBeUndefined();
    expect(run(batches, "ada", {}).error).toMatchObject({ code: "RATE_LIMITED" });
  });
});
