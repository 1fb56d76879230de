import { z } from "zod";

/** Settings every service reads. */
export const baseEnvSchema = z.object({
  NATS_URL: z.string().min(1).default("nats://127.0.0.1:4222"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type EnvParseResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** Parses environment variables with a zod object schema; a bad value names the variable. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): EnvParseResult<z.infer<S>> {
  const result = schema.safeParse(env);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const variable = issue?.path.join(".") ?? "environment";
  const shown = typeof issue?.path[0] === "string" ? env[issue.path[0]] : undefined;
  const value = shown === undefined ? "unset" : `"${shown}"`;
  return { ok: false, message: `Invalid configuration: ${variable} (${value}): ${issue?.message ?? "invalid"}` };
}

/** For a service's main: parse or stop the process with one clear line. */
export function loadEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = parseEnv(schema, env);
  if (result.ok) return result.value;
  process.stderr.write(`${result.message}\n`);
  process.exit(1);
}

/** An integer environment variable with a default and bounds. */
export const envInt = (defaultValue: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(defaultValue);
