// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { LiveSocket, type SocketLike } from "./live-socket.js";

/** A WebSocket the test plays the gateway's side of. */
class FakeSocket extends EventTarget implements SocketLike {
  readonly sent: Array<Record<string, unknown>> = [];
  constructor(readonly url: string) {
    super();
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(): void {
    this.dispatchEvent(new Event("close"));
  }
  open(): void {
    this.dispatchEvent(new Event("open"));
  }
  answer(message: object): void {
    this.dispatchEvent(new MessageEvent("message", { data: JSON.stringify(message) }));
  }
}

let sockets: FakeSocket[];
const live = (token?: string): LiveSocket => new LiveSocket({ get: () => token }, (url) => sockets[sockets.push(new FakeSocket(url)) - 1] as FakeSocket);
const last = (): FakeSocket => sockets.at(-1) as FakeSocket;
const event = (sessionId: string, seq: number): RunEvent => ({ type: "delta", session_id: sessionId, run_id: "r1", seq, text: "hi" });

beforeEach(() => {
  sockets = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe("LiveSocket", () => {
  it("opens only once a chat is watched, and hands each watched chat its events", () => {
    const client = live();
    expect(sockets).toHaveLength(0);
    const seen: RunEvent[] = [];
    client.watch("s1", (received) => seen.push(received));
    expect(last().url).toBe(`ws://${location.host}/ws`);
    last().open();
    expect(client.connected).toBe(true);
    expect(last().sent).toEqual([{ type: "watch", session_id: "s1" }]);
    last().answer(event("s1", 0));
    last().answer(event("s2", 0));
    expect(seen).toEqual([event("s1", 0)]);
  });

  it("signs in with the page's token first and is connected once the gateway says ready", () => {
    const client = live("alice-token");
    client.watch("s1", () => undefined);
    last().open();
    expect(client.connected).toBe(false);
    expect(last().sent).toEqual([{ type: "auth", token: "alice-token" }]);
    last().answer({ type: "ready" });
    expect(client.connected).toBe(true);
    expect(last().sent.at(-1)).toEqual({ type: "watch", session_id: "s1" });
  });

  it("answers an approve with the decision the gateway sent for that call, and a refusal as an error", async () => {
    const client = live();
    client.watch("s1", () => undefined);
    last().open();
    const approved = client.approve("s1", "a1", { decision: "approve" });
    const refused = client.approve("s1", "a2", { decision: "reject", message: "no" });
    expect(last().sent.slice(1)).toEqual([
      { type: "approve", session_id: "s1", approval_id: "a1", decision: "approve" },
      { type: "approve", session_id: "s1", approval_id: "a2", decision: "reject", message: "no" },
    ]);
    last().answer({ type: "error", session_id: "s1", approval_id: "a2", error: { code: "PROJECT_FORBIDDEN", message: "Viewers cannot decide" } });
    last().answer({ type: "approval_decided", session_id: "s1", approval_id: "a1", decision: "approve", by: "bob" });
    await expect(approved).resolves.toEqual({ decision: "approve", by: "bob" });
    await expect(refused).rejects.toMatchObject({ code: "PROJECT_FORBIDDEN", message: "Viewers cannot decide" });
  });

  it("refuses an approve while not connected, and fails one whose socket closes, so the page decides by REST", async () => {
    const client = live();
    await expect(client.approve("s1", "a1", { decision: "approve" })).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    client.watch("s1", () => undefined);
    last().open();
    const waiting = client.approve("s1", "a1", { decision: "approve" });
    last().close();
    await expect(waiting).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    expect(client.connected).toBe(false);
  });

  it("opens again after a close, with its watches, and stops watching a chat nobody listens to", () => {
    const client = live();
    const stop = client.watch("s1", () => undefined);
    client.watch("s2", () => undefined);
    last().open();
    last().close();
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    expect(sockets).toHaveLength(2);
    last().open();
    expect(last().sent).toEqual([
      { type: "watch", session_id: "s1" },
      { type: "watch", session_id: "s2" },
    ]);
    stop();
    expect(last().sent.at(-1)).toEqual({ type: "unwatch", session_id: "s1" });
  });
});
