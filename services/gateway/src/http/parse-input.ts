import type { z } from "zod";
import { AppError, firstIssue } from "@agent-orchestrator/shared/runtime";

/** Parses a request's body or query with its schema; the first problem becomes a VALIDATION_ERROR naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AppError("VALIDATION_ERROR", firstIssue(parsed.error, where));
}
