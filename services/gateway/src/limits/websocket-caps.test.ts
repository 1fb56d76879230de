import { describe, expect, it } from "vitest";
import { WebSocketCaps } from "./websocket-caps.js";

const caps = () =>
  new WebSocketCaps({ WS_MAX_CONNECTIONS: 4, WS_MAX_CONNECTIONS_PER_ADDRESS: 2, WS_MAX_CONNECTIONS_PER_USER: 2, WS_MAX_WATCHES_PER_SOCKET: 2, WS_MAX_WATCHES_PER_USER: 3 });

const admitted = (result: ReturnType<WebSocketCaps["admit"]>) => {
  if (!result.ok) throw new Error(result.error.message);
  return result.socket;
};

describe("WebSocket caps", () => {
  it("refuses a socket past its address's cap (429) and past the total (503), and counts a closed one out", () => {
    const limits = caps();
    const first = admitted(limits.admit("10.0.0.1", undefined));
    admitted(limits.admit("10.0.0.1", undefined));
    expect(limits.admit("10.0.0.1", undefined)).toMatchObject({ ok: false, status: 429, limit: "ws_address", error: { code: "RATE_LIMITED" } });
    admitted(limits.admit("10.0.0.2", undefined));
    admitted(limits.admit("10.0.0.3", undefined));
    expect(limits.admit("10.0.0.4", undefined)).toMatchObject({ ok: false, status: 503, limit: "ws_total" });
    first.release();
    first.release();
    expect(limits.open).toBe(3);
    admitted(limits.admit("10.0.0.1", undefined));
  });

  it("counts sockets per user whether they signed in on the upgrade or later, and a refused one holds nothing", () => {
    const limits = caps();
    admitted(limits.admit("10.0.0.1", "ada"));
    const later = admitted(limits.admit("10.0.0.2", undefined));
    expect(later.signIn("ada")).toBeUndefined();
    expect(limits.admit("10.0.0.3", "ada")).toMatchObject({ ok: false, status: 429, limit: "ws_user" });
    expect(limits.open).toBe(2);
    const third = admitted(limits.admit("10.0.0.3", undefined));
    expect(third.signIn("ada")?.code).toBe("RATE_LIMITED");
    later.release();
    expect(third.signIn("ada")).toBeUndefined();
  });

  it("caps watches per socket and per user, and gives them back when the socket closes", () => {
    const limits = caps();
    const one = admitted(limits.admit("10.0.0.1", "ada"));
    const two = admitted(limits.admit("10.0.0.2", "ada"));
    const first = one.watch("ada");
    expect(first.ok && one.watch("ada").ok).toBe(true);
    expect(one.watch("ada")).toMatchObject({ ok: false, error: { message: expect.stringContaining("This socket watches 2") } });
    expect(two.watch("ada").ok).toBe(true);
    expect(two.watch("ada")).toMatchObject({ ok: false, error: { message: expect.stringContaining("This user watches 3") } });
    if (first.ok) first.release();
    expect(two.watch("ada").ok).toBe(true);
    one.release();
    expect(two.watch("ada")).toMatchObject({ ok: false, error: { message: expect.stringContaining("This socket watches 2") } });
    const three = admitted(limits.admit("10.0.0.3", "ada"));
    expect(three.watch("ada").ok).toBe(true);
  });
});
