import type { Subscription } from "nats";

/** subscriptions this process has ended: nats.js marks an iterated one closed only once its reader reaches the end */
const ended = new WeakSet<Subscription>();

/**
 * Ends a subscription once, however many of its readers end it: nats.js writes an `UNSUB` to the server on every
 * `unsubscribe()`, even of a subscription already ended, and each is a socket write of its own (a chat turn's event
 * subscription was ended four times, by its reader, its timers and its door: bench/README.md "A sixth pass").
 */
export function endSubscription(subscription: Subscription): void {
  if (ended.has(subscription) || subscription.isClosed()) return;
  ended.add(subscription);
  subscription.unsubscribe();
}
