import type { Service, ServiceGroup, ServiceMsg } from "nats";
import type { z } from "zod";
import { toErrorBody, AppError } from "./app-error.js";
import type { Logger } from "./logger.js";
import { decodeJson, encodeJson } from "./nats-request.js";
import { inEndpointSpan } from "./telemetry/nats-spans.js";
import { markCurrentSpanFailed } from "./telemetry/spans.js";

type JsonHandler<S extends z.ZodType> = (body: z.infer<S>, message: ServiceMsg) => Promise<unknown>;

/**
 * Adds a Services-framework endpoint that speaks JSON: the request is decoded and validated with `schema`,
 * the handler's value is the reply (bytes are sent as they are: a reply the handler keeps encoded), and any
 * error becomes `{success:false, error}` (logged once, here).
 * A bad message never stops the endpoint. Each request is handled in a server span under the trace it carries.
 */
export function addJsonEndpoint<S extends z.ZodType>(
  target: Service | ServiceGroup,
  name: string,
  subject: string,
  schema: S,
  handler: JsonHandler<S>,
  logger: Logger,
): void {
  target.addEndpoint(name, {
    subject,
    handler: (error, message) => {
      if (error) {
        logger.error({ err: error, subject }, "endpoint subscription failed");
        return;
      }
      void inEndpointSpan(message, name, () => answer(message, schema, handler, logger, subject));
    },
  });
}

async function answer<S extends z.ZodType>(
  message: ServiceMsg,
  schema: S,
  handler: JsonHandler<S>,
  logger: Logger,
  subject: string,
): Promise<void> {
  let reply: unknown;
  try {
    reply = await handler(decodeJson(message.data, schema), message);
  } catch (error) {
    markCurrentSpanFailed(error);
    if (AppError.is(error)) logger.warn({ code: error.code, detail: error.detail, subject }, error.message);
    else logger.error({ err: error, subject }, "handler failed");
    reply = { success: false, error: toErrorBody(error) };
  }
  try {
    message.respond(reply instanceof Uint8Array ? reply : encodeJson(reply));
  } catch (error) {
    logger.error({ err: error, subject }, "reply could not be sent");
    message.respond(encodeJson({ success: false, error: toErrorBody(new AppError("PAYLOAD_TOO_LARGE", "Reply too large")) }));
  }
}
