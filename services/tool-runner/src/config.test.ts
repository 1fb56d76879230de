import { parseEnv } from "@agent-orchestrator/shared/runtime";
import { describe, expect, it } from "vitest";
import { toolRunnerEnvSchema } from "./config.js";

describe("toolRunnerEnvSchema", () => {
  it("gives every setting a default", () => {
    const result = parseEnv(toolRunnerEnvSchema, {});
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({
        BMAD_ROOT: ".",
        OUTPUT_ROOT: "./data/agent-outputs",
        READ_MAX_BYTES: 1024 * 1024,
        WRITE_MAX_BYTES: 1024 * 1024,
        LIST_MAX_ENTRIES: 1000,
        TOOL_CONCURRENCY: 64,
        SUBJECT_PREFIX: "",
        SCRIPTS: "auto",
        SCRIPT_TIMEOUT_MS: 25_000,
        SCRIPT_MEMORY_MB: 512,
        SCRIPT_OUTPUT_MAX_BYTES: 64 * 1024,
        SCRIPT_CONCURRENCY: 4,
      }),
    });
  });

  it("reads numbers from strings", () => {
    const result = parseEnv(toolRunnerEnvSchema, { READ_MAX_BYTES: "2048", TOOL_CONCURRENCY: "4" });
    expect(result.ok && result.value.READ_MAX_BYTES).toBe(2048);
    expect(result.ok && result.value.TOOL_CONCURRENCY).toBe(4);
  });

  it("names the variable when a value is bad", () => {
    const result = parseEnv(toolRunnerEnvSchema, { TOOL_CONCURRENCY: "0" });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/TOOL_CONCURRENCY \("0"\)/);
  });

  it("accepts a subject prefix made of plain tokens only", () => {
    expect(parseEnv(toolRunnerEnvSchema, { SUBJECT_PREFIX: "t1a2b" }).ok).toBe(true);
    expect(parseEnv(toolRunnerEnvSchema, { SUBJECT_PREFIX: "a.b." }).ok).toBe(true);
    expect(parseEnv(toolRunnerEnvSchema, { SUBJECT_PREFIX: "a.>" }).ok).toBe(false);
    expect(parseEnv(toolRunnerEnvSchema, { SUBJECT_PREFIX: "a b" }).ok).toBe(false);
  });

  it("refuses an empty BMAD_ROOT", () => {
    expect(parseEnv(toolRunnerEnvSchema, { BMAD_ROOT: "" }).ok).toBe(false);
  });
});
