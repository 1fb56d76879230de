import type { Request } from "express";

/** The file a `/files/*path` request names, as the audit record's target (its path, never its contents). */
export function filePathTarget(request: Request): { target: string } {
  const path: unknown = request.params["path"];
  return { target: Array.isArray(path) ? path.join("/") : String(path) };
}
