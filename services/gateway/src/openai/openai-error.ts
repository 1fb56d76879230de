import type { NextFunction, Request, Response } from "express";
import { toErrorBody, type Logger } from "@agent-orchestrator/shared/runtime";
import { type ErrorCode, type OpenAiErrorBody } from "@agent-orchestrator/shared/wire";
import { httpStatusByCode, retryAfterSecondsByCode } from "../http/http-status.js";
import { toAppError } from "../http/to-app-error.js";

/** Codes OpenAI clients know by name; every other code is sent lower-cased (`session_busy`, `turn_timeout`). */
const openAiCodes: Partial<Record<ErrorCode, string>> = {
  AGENT_NOT_FOUND: "model_not_found",
  UNAUTHORIZED: "invalid_api_key",
  RATE_LIMITED: "rate_limit_exceeded",
  MODEL_RATE_LIMITED: "rate_limit_exceeded",
};

/** OpenAI's error `type` by HTTP status. */
function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** Our error as OpenAI's `{error:{message,type,param,code}}` with the status from the one table. */
export function toOpenAiError(error: unknown): { status: number; body: OpenAiErrorBody } {
  const { code, message } = toErrorBody(error);
  const status = httpStatusByCode[code];
  return { status, body: { error: { message, type: errorType(status), param: null, code: openAiCodes[code] ?? code.toLowerCase() } } };
}

export function sendOpenAiError(response: Response, error: unknown): void {
  const { status, body } = toOpenAiError(error);
  // OpenAI's clients wait as long before they retry a 429 on their own
  const retryAfter = retryAfterSecondsByCode[toErrorBody(error).code];
  if (retryAfter !== undefined) response.set("retry-after", String(retryAfter));
  response.status(status).json(body);
}

/** The error handler of `/v1`: every failure, ours or express', in OpenAI's shape. */
export function openAiErrorHandler(error: unknown, _request: Request, response: Response, _next: NextFunction): void {
  const appError = toAppError(error, response.locals["logger"] as Logger);
  if (response.headersSent) {
    response.end();
    return;
  }
  sendOpenAiError(response, appError);
}
