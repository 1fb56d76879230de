import type { IncomingMessage } from "node:http";
import { isIPv4, isIPv6 } from "node:net";
import type { TrustedProxies } from "../env/trusted-proxies.js";

/**
 * The client's address, the one every per-address limit of the gateway counts (failed sign-ins, WebSocket
 * connections): the socket's peer, unless that peer is a trusted proxy (TRUSTED_PROXIES); then the address
 * it put last in `X-Forwarded-For`, and so on from the right while each hop is trusted. Entries left of the
 * first untrusted hop were written by the client and are never read; an entry that is no address stops
 * the walk at the proxy that passed it on.
 */
export function clientAddress(request: IncomingMessage, trusted: TrustedProxies): string {
  // Node's type says the socket is always there; once the connection has closed it is null
  const socket = request.socket as IncomingMessage["socket"] | null;
  const peer = normalizeAddress(socket?.remoteAddress) ?? "unknown";
  if (!trusted.any) return peer;
  const header = request.headers["x-forwarded-for"];
  const forwarded = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  let address = peer;
  for (let hop = 0; hop < forwarded.length && trusted.trusts(address, hop); hop++) {
    const next = normalizeAddress(forwarded[forwarded.length - 1 - hop]);
    if (next === undefined) break;
    address = next;
  }
  return address;
}

/**
 * The key a per-address limit counts `address` under: an IPv4 address itself; an IPv6 address by its /64,
 * the smallest network one subscriber is given, so that the 2^64 addresses of one client are one client.
 */
export function addressKey(address: string): string {
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(":")}::/64`;
}

/** An address as a plain IP: IPv4-mapped IPv6 as IPv4, without brackets, zone or (for `X-Forwarded-For` entries) port; undefined if it is none. */
export function normalizeAddress(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1] !== undefined) address = bracketed[1];
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
  if (withPort?.[1] !== undefined) address = withPort[1];
  address = address.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped?.[1] !== undefined) address = mapped[1];
  return isIPv4(address) || isIPv6(address) ? address : undefined;
}

/** The eight groups of an IPv6 address, `::` filled in and an embedded IPv4 tail turned into two groups. */
function expandIPv6(address: string): string[] {
  let text = address;
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (tail?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = tail[1].split(".").map(Number);
    text = text.slice(0, -tail[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = rest === undefined || rest === "" ? [] : rest.split(":");
  const middle = rest === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => "0");
  return [...left, ...middle, ...right].map((group) => group.replace(/^0+(?=.)/, ""));
}
