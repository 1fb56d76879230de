import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from "nats";
import type { z } from "zod";
import { AppError } from "./app-error.js";
import { natsFailureKind } from "./nats/nats-failure.js";
import { parseJson } from "./safe-json.js";
import { firstIssue } from "./zod-issue.js";
import { startSendSpan } from "./telemetry/nats-spans.js";
import { withTraceHeaders } from "./telemetry/nats-trace-headers.js";
import { markFailed } from "./telemetry/spans.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeJson = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

/** Decodes a NATS payload with the safe JSON parser and a zod schema; a bad payload is a BAD_REQUEST. */
export function decodeJson<S extends z.ZodType>(data: Uint8Array, schema: S): z.infer<S> {
  const parsed = parseJson(decoder.decode(data));
  if (!parsed.ok) throw new AppError("BAD_REQUEST", `Invalid JSON: ${parsed.error}`);
  const result = schema.safeParse(parsed.value);
  if (!result.success) {
    throw new AppError("BAD_REQUEST", `Invalid message: ${firstIssue(result.error, "(root)")}`);
  }
  return result.data;
}

interface RequestOptions {
  /** always explicit: nats.js would otherwise wait 1 s */
  timeoutMs: number;
  headers?: Record<string, string>;
}

/**
 * A JSON request/reply with the reply validated by `schema`. `body` is sent as JSON; bytes are taken as JSON
 * already encoded (by a caller that measured them, so nothing is encoded twice). No responders fails at once with
 * SERVICE_UNAVAILABLE; a silent service becomes SERVICE_TIMEOUT. The request is a client span, whose
 * trace context travels in the message headers.
 */
export async function requestJson<S extends z.ZodType>(
  connection: NatsConnection,
  subject: string,
  body: unknown,
  schema: S,
  options: RequestOptions,
): Promise<z.infer<S>> {
  const span = startSendSpan(subject);
  let messageHeaders: MsgHdrs | undefined;
  if (options.headers) {
    messageHeaders = natsHeaders();
    for (const [key, value] of Object.entries(options.headers)) messageHeaders.set(key, value);
  }
  messageHeaders = withTraceHeaders(messageHeaders, span);
  try {
    const reply = await connection.request(subject, body instanceof Uint8Array ? body : encodeJson(body), {
      timeout: options.timeoutMs,
      ...(messageHeaders ? { headers: messageHeaders } : {}),
    });
    return decodeJson(reply.data, schema);
  } catch (error) {
    throw markFailed(span, toRequestError(error, subject, options.timeoutMs));
  } finally {
    span.end();
  }
}

function toRequestError(error: unknown, subject: string, timeoutMs: number): AppError {
  if (AppError.is(error)) return error;
  switch (natsFailureKind(error)) {
    case "no-responders":
      return new AppError("SERVICE_UNAVAILABLE", `No service is answering ${subject}`, { cause: error });
    case "timeout":
      return new AppError("SERVICE_TIMEOUT", `No answer on ${subject} within ${timeoutMs} ms`, { cause: error });
    case "payload-too-large":
      return new AppError("PAYLOAD_TOO_LARGE", "Message too large for NATS", { cause: error });
    default:
      return new AppError("SERVICE_UNAVAILABLE", `Request on ${subject} failed`, { cause: error });
  }
}
