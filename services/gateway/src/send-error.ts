import type { Response } from "express";
import { toErrorBody } from "@agent-orchestrator/shared";
import { httpStatusByCode } from "./http-status.js";

/** Seconds an overloaded gateway asks a client to wait before sending the turn again. */
export const overloadedRetryAfterSeconds = 5;

/** Sends the error body of docs/design.md "Clients" with the status from the one table. */
export function sendError(response: Response, error: unknown): void {
  const body = toErrorBody(error);
  if (body.code === "OVERLOADED") response.set("retry-after", String(overloadedRetryAfterSeconds));
  response.status(httpStatusByCode[body.code]).json({ success: false, error: body });
}
