import { describe, expect, it } from "vitest";
import { TrustedProxies } from "./trusted-proxies.js";

const parse = (text: string | undefined) => {
  const parsed = TrustedProxies.parse(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe("TRUSTED_PROXIES", () => {
  it("trusts no peer when unset, empty or 0", () => {
    for (const text of [undefined, "", " ", "0"]) {
      expect(parse(text).any).toBe(false);
      expect(parse(text).trusts("127.0.0.1", 0)).toBe(false);
    }
  });

  it("trusts the nearest hops whatever their address with a number", () => {
    const trusted = parse("2");
    expect([trusted.trusts("203.0.113.9", 0), trusted.trusts("203.0.113.9", 1), trusted.trusts("10.0.0.1", 2)]).toEqual([true, true, false]);
  });

  it("trusts listed addresses, CIDR ranges and Express' names, IPv4 and IPv6", () => {
    const trusted = parse("10.1.2.3, 192.0.2.0/24, 2001:db8::/32, loopback");
    for (const address of ["10.1.2.3", "192.0.2.77", "2001:db8:5::1", "127.0.0.1", "::1"]) expect(trusted.trusts(address, 5), address).toBe(true);
    for (const address of ["10.1.2.4", "192.0.3.1", "2001:db9::1", "198.51.100.1"]) expect(trusted.trusts(address, 0), address).toBe(false);
    expect(parse("uniquelocal").trusts("172.20.0.5", 0)).toBe(true);
    expect(parse("linklocal").trusts("fe80::1", 0)).toBe(true);
  });

  it("refuses what is not a list of proxies, trusting everyone included", () => {
    for (const text of ["true", "*", "10.0.0.0/33", "proxy.example", "10.0.0.1/8/2", "constructor", "99"]) {
      expect(TrustedProxies.parse(text).ok, text).toBe(false);
    }
  });
});
