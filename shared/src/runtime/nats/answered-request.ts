import { RequestOne } from "nats/lib/nats-base-client/request.js";

/**
 * nats.js 2.29.3 ends every answered request with `RequestOne.cancel()`, which builds a `NatsError` (a stack trace:
 * about 5 µs) only to reject the request's promise, already resolved with the reply, so nobody sees it. Every KV read
 * and write, JetStream publish and service request pays it: a few percent of each service's CPU
 * (bench/profiles/orchestrator.md). This answers the request as `resolver` does, without that error; a failed request
 * goes through nats.js's own `resolver` unchanged. To go when nats.js stops building it (check `RequestOne.resolver`
 * in its request.js on an upgrade).
 */
export function answerRequestsWithoutCancelErrors(): void {
  const prototype = RequestOne.prototype as RequestOne & { answeredWithoutCancelError?: true };
  if (prototype.answeredWithoutCancelError) return;
  const { resolver } = prototype;
  prototype.resolver = function (this: RequestOne, error, message) {
    if (error) return resolver.call(this, error, message);
    this.timer?.cancel();
    this.deferred.resolve(message);
    this.mux.cancel(this);
  };
  prototype.answeredWithoutCancelError = true;
}
