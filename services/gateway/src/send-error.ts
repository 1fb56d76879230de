import type { Response } from "express";
import { toErrorBody } from "@agent-orchestrator/shared";
import { httpStatusByCode } from "./http-status.js";

/** Sends the DESIGN §4 error body with the status from the one table. */
export function sendError(response: Response, error: unknown): void {
  const body = toErrorBody(error);
  response.status(httpStatusByCode[body.code]).json({ success: false, error: body });
}
