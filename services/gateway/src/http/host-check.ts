import type { IncomingMessage } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";

/** The host name of a `Host` header, lower-cased, without its port (`[::1]` keeps its brackets). */
export function hostNameOf(header: string | undefined): string | undefined {
  if (header === undefined || header === "") return undefined;
  const host = header.trim().toLowerCase();
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end > 0 ? host.slice(0, end + 1) : undefined;
  }
  return host.split(":")[0];
}

/** Whether a request's `Host` names this gateway (one of `allowed`). */
export const hostAllowed = (request: IncomingMessage, allowed: readonly string[]): boolean => {
  const name = hostNameOf(request.headers.host);
  return name !== undefined && allowed.includes(name);
};

/**
 * Refuses a request whose `Host` is not one of `allowed` (FORBIDDEN). A page on another site whose DNS
 * name was rebound to 127.0.0.1 sends its own name as `Host`; without tokens nothing else would stop it
 * from driving the local gateway.
 */
export function requireAllowedHost(allowed: readonly string[]) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    next(hostAllowed(request, allowed) ? undefined : new AppError("FORBIDDEN", "This host name is not served here; add it to ALLOWED_HOSTS"));
  };
}
