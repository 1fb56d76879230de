import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { addressKey, clientAddress, normalizeAddress } from "./client-address.js";
import { TrustedProxies } from "../env/trusted-proxies.js";

const request = (peer: string, forwardedFor?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } }) as unknown as IncomingMessage;

const trust = (text: string) => {
  const parsed = TrustedProxies.parse(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe("the client address", () => {
  it("is unknown, not an exception, once the connection has closed (the request's socket is null then)", () => {
    expect(clientAddress({ socket: null, headers: {} } as unknown as IncomingMessage, TrustedProxies.none)).toBe("unknown");
  });

  it("is the socket's peer by default: X-Forwarded-For from anyone is ignored", () => {
    expect(clientAddress(request("::ffff:198.51.100.7", "203.0.113.1"), TrustedProxies.none)).toBe("198.51.100.7");
  });

  it("is the address a trusted proxy forwarded, read from the right; what the client wrote left of it is not believed", () => {
    const proxies = trust("10.0.0.0/8");
    // the client sent "X-Forwarded-For: 1.2.3.4" itself; the proxy 10.0.0.5 appended the real peer
    expect(clientAddress(request("10.0.0.5", "1.2.3.4, 198.51.100.7"), proxies)).toBe("198.51.100.7");
    // two trusted proxies in a row
    expect(clientAddress(request("10.0.0.5", ["1.2.3.4, 198.51.100.7", "10.0.0.9"]), proxies)).toBe("198.51.100.7");
    // an untrusted peer's header is ignored
    expect(clientAddress(request("198.51.100.8", "1.2.3.4"), proxies)).toBe("198.51.100.8");
    // the proxy passed on something that is no address: its own address is the best known
    expect(clientAddress(request("10.0.0.5", "not-an-address"), proxies)).toBe("10.0.0.5");
  });

  it("with a hop count, trusts that many proxies and stops there", () => {
    expect(clientAddress(request("203.0.113.50", "1.2.3.4, 198.51.100.7"), trust("1"))).toBe("198.51.100.7");
    expect(clientAddress(request("203.0.113.50", "1.2.3.4, 198.51.100.7, 203.0.113.60"), trust("2"))).toBe("198.51.100.7");
    // fewer entries than hops: the leftmost
    expect(clientAddress(request("203.0.113.50", "198.51.100.7"), trust("3"))).toBe("198.51.100.7");
  });

  it("normalises the forms addresses come in", () => {
    expect(normalizeAddress("[2001:db8::1]:443")).toBe("2001:db8::1");
    expect(normalizeAddress("198.51.100.7:5678")).toBe("198.51.100.7");
    expect(normalizeAddress("::FFFF:10.0.0.1")).toBe("10.0.0.1");
    expect(normalizeAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(normalizeAddress("unknown")).toBeUndefined();
  });

  it("counts IPv6 clients by their /64, IPv4 by their address", () => {
    expect(addressKey("198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:fffe")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("64:ff9b::198.51.100.7")).toBe("64:ff9b:0:0::/64");
  });
});
