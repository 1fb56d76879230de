import { TokenBucket } from "./token-bucket.js";

/**
 * The rate of one WebSocket: `perSecond` messages a second, bursts up to the same number. Chats, cancels and
 * watches are a few a minute; a client sending more is misbehaving.
 */
export class MessageRate {
  readonly #bucket: TokenBucket;

  constructor(perSecond: number, now: () => number = Date.now) {
    this.#bucket = new TokenBucket(perSecond, 1000, now);
  }

  /** Takes one message; false when the socket is over its rate. */
  take(): boolean {
    return this.#bucket.take();
  }
}
