import type { z } from "zod";
import { AppError, requestJson } from "@agent-orchestrator/shared/runtime";
import { ErrorReply } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "./gateway-context.js";

/**
 * A request to another service whose reply is `{success:true, …}` or an error body; the error is thrown
 * as an AppError, so routes only handle the success shape. `timeoutMs` (default REQUEST_TIMEOUT_MS) for the
 * requests that do long work (an upload taken, an archive checked).
 */
export async function callService<S extends z.ZodType>(
  context: Pick<GatewayContext, "connection" | "subjectPrefix" | "config">,
  subject: string,
  body: unknown,
  schema: S,
  options: { timeoutMs?: number } = {},
): Promise<Exclude<z.infer<S>, ErrorReply>> {
  const reply = (await requestJson(context.connection, context.subjectPrefix + subject, body, schema, {
    timeoutMs: options.timeoutMs ?? context.config.REQUEST_TIMEOUT_MS,
  })) as z.infer<S>;
  const failure = ErrorReply.safeParse(reply);
  if (failure.success) throw new AppError(failure.data.error.code, failure.data.error.message);
  return reply as Exclude<z.infer<S>, ErrorReply>;
}
