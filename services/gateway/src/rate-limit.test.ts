import type { NextFunction, Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { rateLimit } from "./rate-limit.js";

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
  it("lets a user make perMinute requests, then answers 429 with retry-after, and refills over time", () => {
    let time = 0;
    const limit = rateLimit(3, () => time);
    const run = (user: string) => {
      const { response, record } = fakeResponse(user);
      let passed = false;
      let error: unknown;
      limit({} as Request, response, ((given?: unknown) => {
        error = given;
        passed = given === undefined;
      }) as NextFunction);
      return { passed, error, record };
    };
    expect([run("ada").passed, run("ada").passed, run("ada").passed]).toEqual([true, true, true]);
    const refused = run("ada");
    expect(refused.passed).toBe(false);
    expect(refused.error).toMatchObject({ code: "RATE_LIMITED" });
    expect(Number(refused.record.headers["retry-after"])).toBeGreaterThan(0);
    expect(run("bob").passed).toBe(true);
    time += 20_000;
    expect(run("ada").passed).toBe(true);
  });
});
