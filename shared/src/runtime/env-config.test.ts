import { describe, expect, it } from "vitest";
import { z } from "zod";
import { baseEnvSchema, envInt, parseEnv } from "./env-config.js";

const schema = baseEnvSchema.extend({ PORT: envInt(3000, 1, 65535) });

describe("parseEnv", () => {
  it("applies defaults", () => {
    const result = parseEnv(schema, {});
    expect(result).toEqual({ ok: true, value: { NATS_URL: "nats://127.0.0.1:4222", LOG_LEVEL: "info", PORT: 3000 } });
  });

  it("names the variable and the value in one line when a value is bad", () => {
    const result = parseEnv(schema, { PORT: "eighty" });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(/^Invalid configuration: PORT \("eighty"\): /);
      expect(result.message).not.toContain("\n");
    }
  });

  it("rejects an unknown log level", () => {
    const result = parseEnv(schema, { LOG_LEVEL: "loud" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain("LOG_LEVEL");
  });

  it("reports a required variable as unset", () => {
    const result = parseEnv(z.object({ BMAD_ROOT: z.string().min(1) }), {});
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining("BMAD_ROOT (unset)") });
  });
});

describe("NATS credentials", () => {
  it("takes NATS_USER and NATS_PASSWORD together", () => {
    const result = parseEnv(baseEnvSchema, { NATS_USER: "gateway", NATS_PASSWORD: "s3cret-password" });
    expect(result).toMatchObject({ ok: true, value: { NATS_USER: "gateway", NATS_PASSWORD: "s3cret-password" } });
  });

  it("names the missing half when only one is set", () => {
    expect(parseEnv(baseEnvSchema, { NATS_USER: "gateway" })).toEqual({
      ok: false,
      message: "Invalid configuration: NATS_PASSWORD (unset): NATS_USER and NATS_PASSWORD are set together or not at all",
    });
    expect(parseEnv(baseEnvSchema, { NATS_PASSWORD: "s3cret-password" })).toMatchObject({ ok: false, message: expect.stringContaining("NATS_USER (unset)") });
  });

  it("never shows a secret's value in the error", () => {
    const result = parseEnv(baseEnvSchema.extend({ NATS_PASSWORD: z.string().min(50) }), { NATS_USER: "gateway", NATS_PASSWORD: "short-secret" });
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining("NATS_PASSWORD (hidden)") });
    expect(JSON.stringify(result)).not.toContain("short-secret");
  });
});
