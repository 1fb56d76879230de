import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { browserOrigin, refuseCrossSiteWrites } from "./cross-site-writes.js";

const request = (method: string, headers: Record<string, string>) => ({ method, headers: { host: "127.0.0.1:3000", ...headers } }) as unknown as Request;

/** What the middleware passes on: undefined to go on, else the error it refused with. */
function verdict(method: string, headers: Record<string, string>, allowed: string[] = []): unknown {
  let passed: unknown = "not called";
  refuseCrossSiteWrites(allowed)(request(method, headers), {} as Response, (error?: unknown) => {
    passed = error;
  });
  return passed;
}

describe("refusing cross-site writes (docs/security.md case 265)", () => {
  it("refuses a POST, PUT, PATCH or DELETE from another site's page, by its Origin or else its Referer", () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const refused = verdict(method, { origin: "https://evil.example" });
      expect(AppError.is(refused) && refused.code).toBe("CSRF_REFUSED");
    }
    expect(verdict("POST", { referer: "https://evil.example/page" })).toMatchObject({ code: "CSRF_REFUSED" });
  });

  it("refuses an opaque origin (`null`: a sandboxed frame, a file:// page) and a Referer that is not a URL", () => {
    expect(verdict("POST", { origin: "null" })).toMatchObject({ code: "CSRF_REFUSED" });
    expect(verdict("POST", { referer: "not a url" })).toMatchObject({ code: "CSRF_REFUSED" });
  });

  it("lets the gateway's own page, an origin in ALLOWED_ORIGINS and programs that send neither header write", () => {
    expect(verdict("POST", { origin: "http://127.0.0.1:3000" })).toBeUndefined();
    expect(verdict("POST", { referer: "http://127.0.0.1:3000/?project=p1" })).toBeUndefined();
    expect(verdict("DELETE", { origin: "https://tools.example" }, ["https://tools.example"])).toBeUndefined();
    expect(verdict("POST", {})).toBeUndefined();
  });

  it("lets any page read (GET, HEAD, OPTIONS change nothing)", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"]) expect(verdict(method, { origin: "https://evil.example" })).toBeUndefined();
  });

  it("takes the Origin over the Referer", () => {
    expect(browserOrigin(request("POST", { origin: "https://evil.example", referer: "http://127.0.0.1:3000/" }))).toBe("https://evil.example");
  });
});
