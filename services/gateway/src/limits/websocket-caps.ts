import { AppError } from "@agent-orchestrator/shared/runtime";
import { addressKey } from "../http/client-address.js";
import type { GatewayConfig } from "../config.js";
import { KeyedSlots } from "./keyed-slots.js";

type CapsConfig = Pick<
  GatewayConfig,
  "WS_MAX_CONNECTIONS" | "WS_MAX_CONNECTIONS_PER_ADDRESS" | "WS_MAX_CONNECTIONS_PER_USER" | "WS_MAX_WATCHES_PER_SOCKET" | "WS_MAX_WATCHES_PER_USER"
>;

/** A refused upgrade: the HTTP status to answer it with, why, and which limit (the metrics' label). */
export type UpgradeRefusal = { status: 429 | 503; error: AppError; limit: "ws_total" | "ws_address" | "ws_user" };

/**
 * What the gateway's WebSockets may hold open (per replica): sockets in all, per client address (signed in
 * or not, so unauthenticated ones count too) and per user, and watches per socket and per user. A socket
 * holds its slots from the upgrade until its TCP connection closes, whichever way it ends.
 */
export class WebSocketCaps {
  private readonly all: KeyedSlots;
  private readonly perAddress: KeyedSlots;
  private readonly perUser: KeyedSlots;
  private readonly watchesPerUser: KeyedSlots;

  constructor(private readonly config: CapsConfig) {
    this.all = new KeyedSlots(config.WS_MAX_CONNECTIONS);
    this.perAddress = new KeyedSlots(config.WS_MAX_CONNECTIONS_PER_ADDRESS);
    this.perUser = new KeyedSlots(config.WS_MAX_CONNECTIONS_PER_USER);
    this.watchesPerUser = new KeyedSlots(config.WS_MAX_WATCHES_PER_USER);
  }

  /** WebSockets open now. */
  get open(): number {
    return this.all.count("");
  }

  /** Admits a new socket from `address`, of `user` when it signed in on the upgrade; or the refusal. */
  admit(address: string, user: string | undefined): { ok: true; socket: SocketSlots } | ({ ok: false } & UpgradeRefusal) {
    const releaseAll = this.all.take("");
    if (!releaseAll) {
      return {
        ok: false,
        status: 503,
        error: new AppError("SERVICE_UNAVAILABLE", `The gateway has ${this.config.WS_MAX_CONNECTIONS} WebSockets open, its most; try again later`),
        limit: "ws_total",
      };
    }
    const releaseAddress = this.perAddress.take(addressKey(address));
    if (!releaseAddress) {
      releaseAll();
      return { ok: false, status: 429, error: new AppError("RATE_LIMITED", `${this.config.WS_MAX_CONNECTIONS_PER_ADDRESS} WebSockets are open from this address already`), limit: "ws_address" };
    }
    const socket = new SocketSlots(this, [releaseAll, releaseAddress]);
    const refused = user === undefined ? undefined : socket.signIn(user);
    if (refused) {
      socket.release();
      return { ok: false, status: 429, error: refused, limit: "ws_user" };
    }
    return { ok: true, socket };
  }

  /** @internal a user's connection slot, for SocketSlots */
  takeUser(user: string): (() => void) | undefined {
    return this.perUser.take(user);
  }

  /** @internal a user's watch slot, for SocketSlots */
  takeWatch(user: string): (() => void) | undefined {
    return this.watchesPerUser.take(user);
  }

  get limits(): CapsConfig {
    return this.config;
  }
}

/** The slots one socket holds: given back all at once when it closes. */
export class SocketSlots {
  private readonly releases = new Set<() => void>();
  private watches = 0;
  private closed = false;

  constructor(
    private readonly caps: WebSocketCaps,
    releases: ReadonlyArray<() => void>,
  ) {
    for (const release of releases) this.releases.add(release);
  }

  /** Counts the socket as `user`'s; the refusal when that user has all their sockets open. */
  signIn(user: string): AppError | undefined {
    const release = this.caps.takeUser(user);
    if (!release) return new AppError("RATE_LIMITED", `${this.caps.limits.WS_MAX_CONNECTIONS_PER_USER} WebSockets of this user are open already`);
    this.releases.add(release);
    return undefined;
  }

  /** A watch slot of this socket and of `user`, given back by calling the result; or the refusal. */
  watch(user: string): { ok: true; release: () => void } | { ok: false; error: AppError } {
    if (this.closed) return { ok: false, error: new AppError("BAD_REQUEST", "The socket is closing") };
    if (this.watches >= this.caps.limits.WS_MAX_WATCHES_PER_SOCKET) {
      return { ok: false, error: new AppError("RATE_LIMITED", `This socket watches ${this.caps.limits.WS_MAX_WATCHES_PER_SOCKET} sessions already, its most; unwatch one first`) };
    }
    const releaseUser = this.caps.takeWatch(user);
    if (!releaseUser) {
      return { ok: false, error: new AppError("RATE_LIMITED", `This user watches ${this.caps.limits.WS_MAX_WATCHES_PER_USER} sessions already, their most; unwatch one first`) };
    }
    this.watches++;
    const release = () => {
      if (!this.releases.delete(release)) return;
      this.watches--;
      releaseUser();
    };
    this.releases.add(release);
    return { ok: true, release };
  }

  /** Gives back every slot (the socket closed); later calls do nothing. */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    for (const release of [...this.releases]) release();
    this.releases.clear();
  }
}
