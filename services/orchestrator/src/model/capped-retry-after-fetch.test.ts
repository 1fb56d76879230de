import { describe, expect, it } from "vitest";
import { cappedRetryAfterFetch } from "./capped-retry-after-fetch.js";

const answer = (status: number, headers: Record<string, string>) => async () => new Response("{}", { status, headers });

describe("cappedRetryAfterFetch", () => {
  it("drops a retry-after longer than the cap from a 429", async () => {
    const response = await cappedRetryAfterFetch(20_000, answer(429, { "retry-after": "3600", "x-other": "kept" }))("http://model");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBeNull();
    expect(response.headers.get("x-other")).toBe("kept");
  });

  it("keeps a short retry-after and retry-after-ms", async () => {
    expect((await cappedRetryAfterFetch(20_000, answer(429, { "retry-after": "2" }))("x")).headers.get("retry-after")).toBe("2");
    expect((await cappedRetryAfterFetch(20_000, answer(503, { "retry-after-ms": "1500" }))("x")).headers.get("retry-after-ms")).toBe("1500");
  });

  it("drops an HTTP-date retry-after far in the future and a non-numeric retry-after-ms", async () => {
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    expect((await cappedRetryAfterFetch(20_000, answer(429, { "retry-after": later }))("x")).headers.get("retry-after")).toBeNull();
    expect((await cappedRetryAfterFetch(20_000, answer(429, { "retry-after-ms": "soon" }))("x")).headers.get("retry-after-ms")).toBeNull();
  });

  it("passes successful responses through untouched", async () => {
    const original = new Response("ok", { status: 200, headers: { "retry-after": "3600" } });
    expect(await cappedRetryAfterFetch(20_000, async () => original)("x")).toBe(original);
  });
});
