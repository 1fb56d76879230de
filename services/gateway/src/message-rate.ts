/**
 * A token bucket for one WebSocket: `perSecond` messages a second, bursts up to the same number. Chats,
 * cancels and watches are a few a minute; a client sending more is misbehaving.
 */
export class MessageRate {
  private tokens: number;
  private updated: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = perSecond;
    this.updated = now();
  }

  /** Takes one message; false when the socket is over its rate. */
  take(): boolean {
    const time = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((time - this.updated) * this.perSecond) / 1000);
    this.updated = time;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
