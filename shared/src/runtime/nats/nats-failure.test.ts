import { ErrorCode, NatsError } from "nats";
import { describe, expect, it } from "vitest";
import { AppError } from "../app-error.js";
import { natsFailureKind, type NatsFailureKind } from "./nats-failure.js";

/** A JetStream API error as nats.js 2.29 throws it: code "503" or the status, and the server's `api_error`. */
function jetStreamError(status: number, errCode: number, description: string): NatsError {
  const error = new NatsError(description, status === 503 ? ErrorCode.JetStreamNotEnabled : String(status));
  error.api_error = { code: status, err_code: errCode, description };
  return error;
}

const cases: Array<[string, unknown, NatsFailureKind]> = [
  ["no responders to a request", NatsError.errorForCode(ErrorCode.NoResponders), "no-responders"],
  ["a request timed out", NatsError.errorForCode(ErrorCode.Timeout), "timeout"],
  ["a denied subject", NatsError.errorForCode(ErrorCode.PermissionsViolation), "permission"],
  ["a message over max_payload", NatsError.errorForCode(ErrorCode.MaxPayloadExceeded), "payload-too-large"],
  ["a closed connection", NatsError.errorForCode(ErrorCode.ConnectionClosed), "connection-closed"],
  ["a draining connection", NatsError.errorForCode(ErrorCode.ConnectionDraining), "connection-closed"],
  ["a stream electing its leader (10008)", jetStreamError(503, 10008, "JetStream system temporarily unavailable"), "no-leader"],
  ["a server that does not lead (10009)", jetStreamError(500, 10009, "JetStream cluster can not handle request"), "no-leader"],
  ["a full stream, whose status is also 503 (10077)", jetStreamError(503, 10077, "maximum bytes exceeded"), "storage-full"],
  ["a full store (10047)", jetStreamError(503, 10047, "insufficient storage resources available"), "storage-full"],
  ["a message the stream finds too large (10054)", jetStreamError(400, 10054, "message size exceeds maximum allowed"), "payload-too-large"],
  ["a lost compare-and-set (10071)", jetStreamError(400, 10071, "wrong last sequence: 3"), "other"],
  ["another NATS error", NatsError.errorForCode(ErrorCode.BadJson), "other"],
  ["an AppError made from no responders", new AppError("SERVICE_UNAVAILABLE", "x", { cause: NatsError.errorForCode(ErrorCode.NoResponders) }), "no-responders"],
  ["two causes deep", new Error("outer", { cause: new AppError("INTERNAL", "y", { cause: jetStreamError(503, 10008, "z") }) }), "no-leader"],
  ["an AppError of its own", new AppError("SERVICE_TIMEOUT", "not from NATS"), "other"],
  ["a plain error that only looks like one by its code", Object.assign(new Error("x"), { code: "503" }), "other"],
  ["not an error", "503", "other"],
  ["nothing", undefined, "other"],
];

describe("natsFailureKind", () => {
  it.each(cases)("%s", (_name, error, kind) => {
    expect(natsFailureKind(error)).toBe(kind);
  });

  it("gives up on a cause chain that loops", () => {
    const first = new Error("a");
    const second = new Error("b", { cause: first });
    Object.assign(first, { cause: second });
    expect(natsFailureKind(first)).toBe("other");
  });
});
