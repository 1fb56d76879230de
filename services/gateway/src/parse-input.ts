import type { z } from "zod";
import { AppError } from "@agent-orchestrator/shared";

/** Parses a request's body or query with its schema; the first problem becomes a VALIDATION_ERROR naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new AppError("VALIDATION_ERROR", `${issue?.path.join(".") || where}: ${issue?.message ?? "invalid"}`);
}
