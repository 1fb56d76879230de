import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { hostAllowed, hostNameOf } from "./host-check.js";

const withHost = (host: string | undefined) => ({ headers: { host } }) as IncomingMessage;
const allowed = ["localhost", "127.0.0.1", "[::1]"];

describe("the Host allow-list (DNS-rebinding protection)", () => {
  it("takes the name without its port", () => {
    expect(hostNameOf("LocalHost:3000")).toBe("localhost");
    expect(hostNameOf("[::1]:3000")).toBe("[::1]");
    expect(hostNameOf("127.0.0.1")).toBe("127.0.0.1");
  });

  it("refuses a rebound foreign name, a missing Host and a name that only starts like an allowed one", () => {
    expect(hostAllowed(withHost("evil.example:3000"), allowed)).toBe(false);
    expect(hostAllowed(withHost(undefined), allowed)).toBe(false);
    expect(hostAllowed(withHost("localhost.evil.example"), allowed)).toBe(false);
    expect(hostAllowed(withHost("localhost:3000"), allowed)).toBe(true);
  });
});
