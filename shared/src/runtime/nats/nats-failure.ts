import { ErrorCode as NatsErrorCode } from "nats";

/**
 * What went wrong in a NATS call, as far as a caller deciding whether to try again needs to know:
 * - `no-responders`: nobody took the request (no service subscribes; no stream leader holds the subject), so
 *   nothing ran and nothing was stored;
 * - `no-leader`: the JetStream API answered that the stream or the cluster cannot serve it now (an election);
 *   nothing was stored;
 * - `timeout`: no answer in time; the request may have been carried out;
 * - `permission`: the server refused the subject to this user;
 * - `payload-too-large`: the message is larger than the server or the stream takes;
 * - `storage-full`: the stream or the server's store has no room (only more room helps);
 * - `connection-closed`: the connection is closed or draining;
 * - `other`: anything else, including errors that are not NATS errors at all.
 */
export type NatsFailureKind =
  | "no-responders"
  | "no-leader"
  | "timeout"
  | "permission"
  | "payload-too-large"
  | "storage-full"
  | "connection-closed"
  | "other";

/** A reader of one client library's errors: the kind of `error`, or undefined when it is not one of its errors. */
type NatsErrorReader = (error: object) => NatsFailureKind | undefined;

/**
 * JetStream API error codes (`err_code`, nats-server's errors.json) that say what kind of failure a
 * JetStream error is; the status of an API error (`code`) alone does not: 503 is also a full stream.
 */
const jetStreamErrorKinds: ReadonlyMap<number, NatsFailureKind> = new Map([
  [10008, "no-leader"], // JetStream system temporarily unavailable (no meta or stream leader)
  [10009, "no-leader"], // JetStream cluster can not handle request (asked a server that does not lead)
  [10118, "no-leader"], // stream is offline (nats-server 2.10 on)
  [10077, "storage-full"], // stream store failed: maximum bytes exceeded
  [10047, "storage-full"], // insufficient storage resources
  [10054, "payload-too-large"], // message size exceeds maximum allowed
]);

const coreErrorKinds: ReadonlyMap<string, NatsFailureKind> = new Map([
  // a JetStream API error with status 503 has this code too; it carries `api_error`, read first
  [NatsErrorCode.NoResponders, "no-responders"],
  [NatsErrorCode.Timeout, "timeout"],
  [NatsErrorCode.PermissionsViolation, "permission"],
  [NatsErrorCode.AuthorizationViolation, "permission"],
  [NatsErrorCode.MaxPayloadExceeded, "payload-too-large"],
  [NatsErrorCode.ConnectionClosed, "connection-closed"],
  [NatsErrorCode.ConnectionDraining, "connection-closed"],
]);

/** nats.js 2.x: one `NatsError` class, told apart by `code`, with `api_error` on JetStream API errors. */
const natsJsV2: NatsErrorReader = (error) => {
  if ((error as { name?: unknown }).name !== "NatsError") return undefined;
  const apiError = (error as { api_error?: { err_code?: number } }).api_error;
  if (apiError) return jetStreamErrorKinds.get(apiError.err_code ?? 0) ?? "other";
  return coreErrorKinds.get(String((error as { code?: unknown }).code)) ?? "other";
};

/**
 * Every client library's reader, tried on each error of a `cause` chain in turn. nats.js 3 adds one here: its
 * errors are classes (`NoRespondersError`, `TimeoutError`, `PermissionViolationError`, `ClosedConnectionError`,
 * `JetStreamApiError` with the `err_code` as `code`), and it wraps them in a `RequestError` with `cause`, which
 * the chain walk below already follows.
 */
const readers: readonly NatsErrorReader[] = [natsJsV2];

/** How deep a `cause` chain is followed: deeper is a cycle or a bug, not a NATS failure. */
const maxCauseDepth = 8;

/**
 * The kind of NATS failure behind `error`: the error itself or the first error of its `cause` chain that a
 * client library's reader knows (so an AppError made from a NATS error is classified by that error).
 */
export function natsFailureKind(error: unknown): NatsFailureKind {
  let current: unknown = error;
  for (let depth = 0; depth < maxCauseDepth && typeof current === "object" && current !== null; depth += 1) {
    for (const read of readers) {
      const kind = read(current);
      if (kind) return kind;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return "other";
}
