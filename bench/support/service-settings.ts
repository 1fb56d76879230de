import type { z } from "zod";
import { parseEnv } from "@agent-orchestrator/shared/runtime";

/** A service's configuration from bench settings, checked by the service's own schema (as its main would). */
export function settings<S extends z.ZodObject>(schema: S, env: Record<string, string>): z.infer<S> {
  const parsed = parseEnv(schema, env);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}
