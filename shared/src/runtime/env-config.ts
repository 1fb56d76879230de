import { z } from "zod";

const optionalSetting = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value));

/** Settings every service reads (docs/configuration.md "Every service"). */
export const baseEnvSchema = z.object({
  NATS_URL: z
    .string()
    .min(1)
    .default("nats://127.0.0.1:4222")
    .describe("the NATS server, or several comma-separated (a cluster's servers, which clients fail over between)"),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino log level; logs are JSON lines"),
  NATS_USER: optionalSetting.describe(
    "the service's own NATS user (deploy/nats/nats-server.conf has one per service; docs/operations.md \"NATS users and permissions\"); unset connects anonymously. `npm start` and the tests set it",
  ),
  NATS_PASSWORD: optionalSetting.describe(
    "that user's password; set together with NATS_USER or not at all. A refused login stops the service at once",
  ),
});

type EnvParseResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** Variables whose value never appears in an error message. */
const secretVariable = /PASSWORD|KEY|TOKEN|SECRET/;

/** Parses environment variables with a zod object schema; a bad value names the variable. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): EnvParseResult<z.infer<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0];
    const variable = issue?.path.join(".") ?? "environment";
    return { ok: false, message: invalid(variable, typeof issue?.path[0] === "string" ? env[issue.path[0]] : undefined, issue?.message ?? "invalid") };
  }
  // across variables, so not in the schema (a refined zod object can no longer be extended by each service)
  const value = result.data as Record<string, unknown>;
  if ((value["NATS_USER"] === undefined) !== (value["NATS_PASSWORD"] === undefined)) {
    const missing = value["NATS_USER"] === undefined ? "NATS_USER" : "NATS_PASSWORD";
    return { ok: false, message: invalid(missing, undefined, "NATS_USER and NATS_PASSWORD are set together or not at all") };
  }
  return { ok: true, value: result.data };
}

function invalid(variable: string, shown: string | undefined, reason: string): string {
  const value = shown === undefined ? "unset" : secretVariable.test(variable) ? "hidden" : `"${shown}"`;
  return `Invalid configuration: ${variable} (${value}): ${reason}`;
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

/**
 * A setting that is gone: unset or empty, it is ignored; set, the service refuses to start with `message` (what to
 * set instead), so an operator's old configuration is not silently read as something else.
 */
export const removedEnv = (message: string, description: string) =>
  z
    .string()
    .optional()
    .refine((value) => value === undefined || value.trim() === "", { message })
    .describe(description);
