// No dependency: node's net.BlockList matches the ranges, and Express' `trust proxy` (proxy-addr) is only a
// transitive, untyped dependency that the WebSocket upgrade, which has no Express request, could not share.
import { BlockList, isIPv4, isIPv6 } from "node:net";

/** Express' names for the private ranges, so a TRUSTED_PROXIES written for Express reads the same here. */
const namedRanges: Readonly<Record<string, ReadonlyArray<readonly [string, number, "ipv4" | "ipv6"]>>> = {
  loopback: [["127.0.0.0", 8, "ipv4"], ["::1", 128, "ipv6"]],
  linklocal: [["169.254.0.0", 16, "ipv4"], ["fe80::", 10, "ipv6"]],
  uniquelocal: [["10.0.0.0", 8, "ipv4"], ["172.16.0.0", 12, "ipv4"], ["192.168.0.0", 16, "ipv4"], ["fc00::", 7, "ipv6"]],
};

/**
 * Which peers may say who the client is (`TRUSTED_PROXIES`): none (the default: the socket's peer is the
 * client), the nearest `hops` peers whatever their address, or peers whose address is in a list of
 * addresses and CIDR ranges. Only a trusted peer's `X-Forwarded-For` is read (see client-address.ts).
 */
export class TrustedProxies {
  static readonly none = new TrustedProxies({ hops: 0 });

  private constructor(private readonly rule: { hops: number } | { ranges: BlockList; text: string }) {}

  /** Parses TRUSTED_PROXIES: empty (none), a hop count, or a comma-separated list of addresses, CIDRs and `loopback`, `linklocal`, `uniquelocal`. */
  static parse(text: string | undefined): { ok: true; value: TrustedProxies } | { ok: false; error: string } {
    const trimmed = (text ?? "").trim();
    if (trimmed === "") return { ok: true, value: TrustedProxies.none };
    if (/^\d+$/.test(trimmed)) {
      const hops = Number(trimmed);
      return hops <= 32 ? { ok: true, value: hops === 0 ? TrustedProxies.none : new TrustedProxies({ hops }) } : { ok: false, error: "a hop count is 32 at most" };
    }
    if (/^(true|\*)$/i.test(trimmed)) return { ok: false, error: "trusting every peer would let any client choose its address: list the proxies, or give their number" };
    const ranges = new BlockList();
    for (const item of trimmed.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")) {
      const added = addRange(ranges, item);
      if (!added) return { ok: false, error: `"${item}" is not an address, a CIDR range, loopback, linklocal or uniquelocal` };
    }
    return { ok: true, value: new TrustedProxies({ ranges, text: trimmed }) };
  }

  /** Whether the peer at `hop` (0 is the gateway's own socket peer, 1 the one before it, …) with `address` is a trusted proxy. */
  trusts(address: string, hop: number): boolean {
    if ("hops" in this.rule) return hop < this.rule.hops;
    if (isIPv4(address)) return this.rule.ranges.check(address, "ipv4");
    return isIPv6(address) && this.rule.ranges.check(address, "ipv6");
  }

  /** Whether any peer is trusted at all (else X-Forwarded-For is never read). */
  get any(): boolean {
    return !("hops" in this.rule) || this.rule.hops > 0;
  }

  toString(): string {
    return "hops" in this.rule ? (this.rule.hops === 0 ? "none" : `${this.rule.hops} hops`) : this.rule.text;
  }
}

function addRange(ranges: BlockList, item: string): boolean {
  const named = namedRanges[item.toLowerCase()];
  if (named && Object.hasOwn(namedRanges, item.toLowerCase())) {
    for (const [network, prefix, type] of named) ranges.addSubnet(network, prefix, type);
    return true;
  }
  const [address = "", prefixText, extra] = item.split("/");
  const type = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : undefined;
  if (type === undefined || extra !== undefined) return false;
  if (prefixText === undefined) {
    ranges.addAddress(address, type);
    return true;
  }
  const prefix = Number(prefixText);
  if (!/^\d+$/.test(prefixText) || prefix > (type === "ipv4" ? 32 : 128)) return false;
  ranges.addSubnet(address, prefix, type);
  return true;
}
