import type { NatsConnection, Subscription } from "nats";
import type { Logger } from "./logger.js";
import { decodeJson } from "./nats-request.js";
import { RegistryChanged } from "../wire/registry-messages.js";
import { subjects } from "../wire/subjects.js";

/**
 * Calls `changed` for every `registry.changed` a registry replica publishes (once its re-scan is served), for
 * services that keep what the registry answered. Any message on the subject counts: only registries may
 * publish there, and forgetting a kept answer costs one more request, while keeping a stale one would serve an
 * old agent; a message that is not a valid change is logged as well.
 */
export function watchRegistryChanges(connection: NatsConnection, subjectPrefix: string, logger: Logger, changed: () => void): Subscription {
  const subject = subjectPrefix + subjects.registryChanged;
  return connection.subscribe(subject, {
    callback: (error, message) => {
      changed();
      if (error) {
        logger.warn({ err: error, subject }, "registry change subscription failed");
        return;
      }
      try {
        const change = decodeJson(message.data, RegistryChanged);
        logger.debug({ instance: change.instance, revision: change.revision }, "registry changed; kept answers forgotten");
      } catch (invalid) {
        logger.warn({ err: invalid, subject }, "invalid registry change event");
      }
    },
  });
}
