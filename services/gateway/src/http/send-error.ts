import type { Response } from "express";
import { toErrorBody } from "@agent-orchestrator/shared/runtime";
import { httpStatusByCode, retryAfterSecondsByCode } from "./http-status.js";

/** Sends the error body of docs/design.md "Clients" with the status from the one table. */
export function sendError(response: Response, error: unknown): void {
  const body = toErrorBody(error);
  // the audit record of a refused act names the code (audit/audited.ts)
  response.locals["errorCode"] = body.code;
  const retryAfter = retryAfterSecondsByCode[body.code];
  if (retryAfter !== undefined) response.set("retry-after", String(retryAfter));
  response.status(httpStatusByCode[body.code]).json({ success: false, error: body });
}
